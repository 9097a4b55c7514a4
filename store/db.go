// Package store keeps Switchboard's state in one bbolt file: tokens and
// their grants, repositories, the hash-chained audit log, work packets with
// their leases and artifacts, agent sessions with their reports and
// questions, the trace log of every session's timeline, settings, agent
// profiles, and the migrations that bring an older file up to date
// (schema.go draws the bucket tree). It is the bottom floor of the program:
// it imports nothing of Switchboard's and knows no transport. Everything
// is read and written through a Tx, inside View or Update.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout bounds how long Open waits for another process to let go
// of the database. bbolt's default of 0 waits forever, which would turn a
// second start into a hang instead of an "already running".
const DefaultLockTimeout = 2 * time.Second

// Options configure Open. The zero value is usable.
type Options struct {
	// LockTimeout is how long to wait for the file lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fixed clock.
	Now func() time.Time
	// Timeout bounds each transaction on PostgreSQL (team mode): a server
	// that does not answer fails the call with ErrUnavailable rather than
	// holding it; 0 means DefaultTimeout.
	Timeout time.Duration
	// Instance is the id of the Switchboard instance opening the
	// database in team mode (instance.go): its sessions, tokens, audit
	// records and landings carry it, its settings and repository folders
	// are its own. "" for a database of one instance, as bbolt's is.
	Instance string
	// Reads, when set, counts the lookups of one packet or one session
	// by id: a test holds a call to its budget of reads with it.
	Reads *Reads
}

// Reads counts record lookups (Options.Reads).
type Reads struct {
	Packets, Sessions atomic.Int64
}

// DefaultTimeout is how long a PostgreSQL transaction may take.
const DefaultTimeout = 10 * time.Second

// DB is an open Switchboard database.
type DB struct {
	// One of the two engines: a bbolt file, or a PostgreSQL pool
	// (db_pg.go).
	bolt *bolt.DB
	pg   *pgEngine
	now  func() time.Time
	// instance is Options.Instance.
	instance string
	reads    *Reads

	// tokens and sessions hold decoded records, so that the token and
	// session lookups every call makes need not decode JSON.
	tokens   decodedCache[tokenRecord]
	sessions decodedCache[Session]

	// auditMu guards auditTail. Updates, the only place it is used, are
	// serialised by bbolt already; the lock keeps the tail safe without
	// leaning on that.
	auditMu sync.Mutex
	// auditTail is the record AppendAudit wrote last, so that the next
	// append need not decode it for its hash; see prevAuditHash. Guarded by
	// auditMu.
	auditTail auditTail
}

// Open opens (creating if needed) the database at path, applies pending
// migrations and returns it. The folder is made 0700 and the file 0600: the
// database holds token hashes and must stay the owner's.
func Open(path string, opts Options) (*DB, error) {
	if isDatabaseURL(path) {
		// bbolt would make a file of that name; the server is
		// OpenPostgres's to reach.
		return nil, fmt.Errorf("open %s: a database URL, not a file: it is opened with OpenPostgres (--database)", redactURL(path))
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create database folder: %w", err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// bbolt creates the file with the mode given, but an older file may have
	// been loosened by hand; tighten it rather than trust it.
	if err := os.Chmod(path, 0o600); err != nil {
		b.Close()
		return nil, fmt.Errorf("restrict %s: %w", path, err)
	}
	db := newDB(opts)
	db.bolt = b
	if err := db.migrate(); err != nil {
		b.Close()
		return nil, err
	}
	return db, nil
}

// isDatabaseURL reports whether path is a PostgreSQL database URL (or
// key=value connection string) rather than a file path: Open would make a
// bbolt file of that name, as a test once did.
func isDatabaseURL(path string) bool {
	lower := strings.ToLower(path)
	if strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:") {
		return true
	}
	keys := map[string]bool{"host": true, "hostaddr": true, "dbname": true, "user": true,
		"password": true, "port": true, "sslmode": true, "search_path": true}
	// A query after the name: "postgres?host=/run/postgresql".
	if _, query, ok := strings.Cut(path, "?"); ok {
		if q, err := url.ParseQuery(query); err == nil {
			for k := range q {
				if keys[strings.ToLower(k)] {
					return true
				}
			}
		}
	}
	// key=value pairs: "host=/run/postgresql dbname=switchboard".
	fields := strings.Fields(path)
	if len(fields) == 0 {
		return false
	}
	key, _, ok := strings.Cut(fields[0], "=")
	return ok && keys[strings.ToLower(key)]
}

func newDB(opts Options) *DB {
	db := &DB{now: opts.Now, instance: opts.Instance, reads: opts.Reads}
	db.tokens = decodedCache[tokenRecord]{what: "token", clone: cloneTokenRecord}
	db.sessions = decodedCache[Session]{what: "session", clone: cloneSession}
	return db
}

// Close releases the database: bbolt's file lock, or the connections to
// PostgreSQL.
func (db *DB) Close() error {
	if db.pg != nil {
		if db.pg.stopListen != nil {
			db.pg.stopListen()
		}
		db.pg.closed.Store(true)
		db.pg.pool.Close()
		return nil
	}
	return db.bolt.Close()
}

// Path is the database file's path, or on PostgreSQL where the database is
// (its URL without the password).
func (db *DB) Path() string {
	if db.pg != nil {
		return db.pg.where
	}
	return db.bolt.Path()
}

// appendFill is how full bbolt packs a page before splitting it, for the
// buckets written only at their end (keys are increasing sequences): the
// default half-full split suits random inserts, and would leave every page
// of an append-only log half empty, doubling the file and the pages a
// commit rewrites.
const appendFill = 1.0

// Tx is one bbolt transaction with Switchboard's accessors on it. It is only
// valid inside the function given to View or Update.
type Tx struct {
	tx  kvTx
	db  *DB // for its caches
	now time.Time
}

// Now is the time the transaction started: every record written in one
// transaction carries the same time.
func (tx *Tx) Now() time.Time { return tx.now }

// Writable reports whether tx may write.
func (tx *Tx) Writable() bool { return tx.tx.Writable() }

// View runs fn in a read-only transaction: on PostgreSQL a snapshot
// (REPEATABLE READ), which takes no lock. ctx bounds it: a caller that
// has left starts nothing, and on PostgreSQL its statement in flight is
// cancelled on the server.
func (db *DB) View(ctx context.Context, fn func(*Tx) error) error {
	return db.run(ctx, false, fn)
}

// Update runs fn in a read-write transaction and commits (with fsync) when fn
// returns nil. Only one Update runs at a time, on PostgreSQL across every
// instance that shares the database (a lock every write takes first). ctx
// bounds it as it bounds View.
func (db *DB) Update(ctx context.Context, fn func(*Tx) error) error {
	return db.run(ctx, true, fn)
}

func (db *DB) run(ctx context.Context, writable bool, fn func(*Tx) error) error {
	if db.pg != nil {
		return db.pg.run(ctx, writable, nil, func(t kvTx) error { return fn(&Tx{tx: t, db: db, now: db.now().UTC()}) })
	}
	// bbolt cannot stop a transaction under way, but need not start one
	// for a caller that has left.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %w", context.Cause(ctx))
	}
	boltFn := func(btx *bolt.Tx) error { return fn(&Tx{tx: kvTx{bolt: btx}, db: db, now: db.now().UTC()}) }
	if writable {
		return db.bolt.Update(boltFn)
	}
	return db.bolt.View(boltFn)
}

// Check runs bbolt's consistency check over the whole file and returns the
// first problem found.
func (db *DB) Check() error {
	if db.pg != nil {
		return nil // PostgreSQL checks its own pages
	}
	return db.bolt.View(func(btx *bolt.Tx) error {
		// Drain the channel: bbolt's checker goroutine sends every problem
		// on an unbuffered channel and reads the transaction until it is
		// done. Returning at the first error would strand it on its next
		// send and let it read pages after the transaction has closed.
		var first error
		for err := range btx.Check() {
			if first == nil {
				first = fmt.Errorf("database check: %w", err)
			}
		}
		return first
	})
}
