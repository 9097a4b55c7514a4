package store

// Opening the store on PostgreSQL (team mode), and its transactions.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgMaxConns bounds the connections one instance holds: one writer at a
// time (the writer lock), and readers beside it. Eight agents drained a
// queue at 271 claims/s with 8, 285 with 16, 290 with 24.
const pgMaxConns = 16

// pgConnectTimeout bounds one connection attempt. A server that is away
// (stopped, restarting, its machine gone) must fail a call within a few
// seconds, as store_unavailable, not hold it for the transaction's whole
// timeout: an agent retries, a person sees the error.
const pgConnectTimeout = 2 * time.Second

// pgEngine is a DB's PostgreSQL side.
type pgEngine struct {
	pool    *pgxpool.Pool
	where   string // the URL without its password, for messages
	timeout time.Duration

	cache pgCache

	// stopListen stops the listener OnSignal started; nil if none.
	stopListen func()
	// closed is set by DB.Close: a transaction after it is the
	// program's mistake, not the server away (the pool says only
	// "closed pool", which pgFailure would take for unavailable).
	closed atomic.Bool
}

// OpenPostgres opens the store in the PostgreSQL database at rawURL
// (postgres://… or key=value pairs; host may be a socket folder), making
// its tables and applying pending migrations. Every instance that opens
// the same database shares one store.
func OpenPostgres(rawURL string, opts Options) (*DB, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		// pgx's message may quote the URL, password and all.
		return nil, errors.New("postgres: the database URL cannot be read")
	}
	cfg.MaxConns = pgMaxConns
	cfg.ConnConfig.ConnectTimeout = min(opts.Timeout, pgConnectTimeout)
	where := redactURL(rawURL)
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w: %w", where, ErrUnavailable, err)
	}
	db := newDB(opts)
	db.pg = &pgEngine{pool: pool, where: where, timeout: opts.Timeout}
	if err := db.migrate(); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", where, err)
	}
	return db, nil
}

// run runs fn in one transaction: a write transaction takes the writer
// lock first and commits when fn and the engine succeeded; a read runs on
// a snapshot (REPEATABLE READ) and takes no lock.
//
// setup is SQL run first, after the lock: the tables, as the store opens.
func (e *pgEngine) run(writable bool, setup []string, fn func(kvTx) error) error {
	if e.closed.Load() {
		return errDBClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return pgFailure("connect", err)
	}
	t := &pgTx{e: e, ctx: ctx, conn: conn.Conn(), writable: writable, buckets: map[string]*pgBucket{}}
	defer func() {
		if !writable && t.err == nil {
			// A read's outcome is settled once fn has its answers: its
			// rollback changes nothing, so the caller does not wait for
			// it. DB.Close waits (the pool closes when every connection
			// is back).
			go t.end(conn)
			return
		}
		t.end(conn) // after a commit, only the release
	}()
	if err := t.begin(setup); err != nil {
		return err
	}
	err = fn(kvTx{pg: t})
	// The engine's failure wins: what fn made of the answers it did not
	// get (a "not found", say) is not the call's outcome.
	if t.err != nil {
		return t.err
	}
	if err != nil {
		return err
	}
	if !writable {
		return nil
	}
	if err := t.commit(); err != nil {
		e.cache.forget()
		// A commit whose answer was lost may have committed: the
		// caller was told nothing was acknowledged, and a retry meets
		// what it did (lease_lost, invalid_state), never a double.
		return err
	}
	e.cache.committed(t.tick, t, t.dropped)
	return nil
}

// errCacheShort ends a transaction run from the instance cache
// (pgEngine.readCached) when fn asks for what the cache does not hold.
var errCacheShort = errors.New("postgres: the instance does not hold what the read asked for")

// read runs fn as DB.Read does: from the instance cache if it can, else
// in a transaction.
func (e *pgEngine) read(fn func(kvTx) error) error {
	if err := e.readCached(fn); err != errCacheShort {
		return err
	}
	return e.run(false, nil, fn)
}

// peek runs fn as DB.Peek does: from the instance cache as it is, with no
// round trip, if fn succeeds there and the server showed the cache's
// clock within pgPeekFresh (an instance that has been idle asks it);
// else as read does.
func (e *pgEngine) peek(fn func(kvTx) error) error {
	if e.closed.Load() {
		return errDBClosed
	}
	if at, seqs := e.cache.recent(pgPeekFresh); seqs != nil {
		// A run from the cache never asks the server: no deadline.
		t := &pgTx{e: e, ctx: context.Background(), cached: true, tick: at, seqs: seqs, buckets: map[string]*pgBucket{}}
		if err := fn(kvTx{pg: t}); err == nil && t.err == nil {
			return nil
		}
	}
	return e.read(fn)
}

// readCached runs fn from the instance cache when the cache is as of the
// database's clock: then the cache holds the database as a snapshot taken
// now would show it, for every key it holds, and a read none of whose
// answers come from the server needs no snapshot there (nor the two
// statements that open and close one). It returns errCacheShort, whether
// fn ran or not, when it cannot answer all of fn from the cache.
func (e *pgEngine) readCached(fn func(kvTx) error) error {
	if e.closed.Load() {
		return errDBClosed
	}
	at, seqs := e.cache.buckets()
	if seqs == nil {
		return errCacheShort
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	tick, changes, err := e.readClockChanges(ctx, at)
	if err != nil {
		return err
	}
	if tick == at {
		e.cache.confirm(at)
	} else {
		// Another instance wrote, or this one did meanwhile: the log
		// says which keys to drop.
		if seqs = e.cache.catchUp(at, tick, changes); seqs == nil {
			return errCacheShort
		}
		at = tick
	}
	t := &pgTx{e: e, ctx: ctx, cached: true, tick: at, seqs: seqs, buckets: map[string]*pgBucket{}}
	err = fn(kvTx{pg: t})
	if t.err != nil {
		return t.err
	}
	return err
}

// readClockChanges reads the clock and the change log's entries since
// tick at, in one statement and so as of one snapshot.
func (e *pgEngine) readClockChanges(ctx context.Context, at uint64) (uint64, []pgChange, error) {
	rows, err := e.pool.Query(ctx, pgReadClockChanges, int64(at), pgCatchUp)
	if err != nil {
		return 0, nil, pgFailure("read the clock", err)
	}
	return scanClockChanges(rows, "read the clock")
}

// scanClockChanges reads rows of the clock and the change log's entries
// joined to it (none joined: one row, the clock alone), as
// pgReadClockChanges and sb_commit answer them, each row's first columns
// into lead. It closes rows.
func scanClockChanges(rows pgx.Rows, what string, lead ...any) (uint64, []pgChange, error) {
	defer rows.Close()
	var tick int64
	var changes []pgChange
	for rows.Next() {
		var (
			chTick    *int64
			buckets   []string
			keys      [][]byte
			vals      [][]byte
			seqNames  []string
			seqValues []int64
			whole     *bool
		)
		dest := append(lead[:len(lead):len(lead)], &tick, &chTick, &buckets, &keys, &vals, &seqNames, &seqValues, &whole)
		if err := rows.Scan(dest...); err != nil {
			return 0, nil, pgFailure(what, err)
		}
		if chTick == nil {
			continue // the clock where the cache is: no entry joined
		}
		c, err := scanChange(*chTick, buckets, keys, vals, seqNames, seqValues, whole != nil && *whole)
		if err != nil {
			return 0, nil, err
		}
		changes = append(changes, c)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, pgFailure(what, err)
	}
	return uint64(tick), changes, nil
}

// errDBClosed is a transaction on a closed DB.
var errDBClosed = errors.New("postgres: the database is closed")

// pgFailure wraps the failure of a statement the engine ran for what it
// was doing. The server being away (a lost or refused connection, a
// deadline, the server shutting down or starting up, too many
// connections) is ErrUnavailable, store_unavailable to the caller, who may
// try again; an error the server gave about the statement itself
// (a bug: a missing table, a bad query) is not, and fails the call as an
// internal error, since trying again would meet it again.
func pgFailure(what string, err error) error {
	if pgUnavailable(err) {
		return fmt.Errorf("postgres: %s: %w: %w", what, ErrUnavailable, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// pgUnavailable reports whether err says the server could not be reached
// or could not serve, rather than refused the statement.
func pgUnavailable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		// No answer from the server at all: the connection failed, was
		// cut, or the deadline passed.
		return true
	}
	switch {
	case strings.HasPrefix(pe.Code, "08"): // connection_exception
		return true
	case strings.HasPrefix(pe.Code, "57P"): // admin_shutdown, crash_shutdown, cannot_connect_now, …
		return true
	case strings.HasPrefix(pe.Code, "53"): // insufficient_resources: too many connections, disk full
		return true
	case pe.Code == "57014": // query_canceled: statement_timeout, or cancelled by the deadline
		return true
	case pe.Code == "40001", pe.Code == "40P01": // serialization_failure, deadlock: nothing done, try again
		return true
	}
	return false
}

// redactURL is rawURL without its password, for messages and the
// Settings window.
func redactURL(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	// key=value pairs: their quoting (a quoted password may hold spaces)
	// is pgx's to read, so the description is rebuilt from what it read,
	// and a password cannot be in it.
	cfg, err := pgconn.ParseConfig(rawURL)
	if err != nil {
		return "(a connection string that cannot be read)"
	}
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}
