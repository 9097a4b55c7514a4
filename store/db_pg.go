package store

// Opening the store on PostgreSQL (team mode), and its transactions.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pgMaxConns bounds the connections one instance holds: one writer at a
// time (the writer lock), and readers beside it. Eight agents drained a
// queue at 271 claims/s with 8, 285 with 16, 290 with 24.
const pgMaxConns = 16

// pgEngine is a DB's PostgreSQL side.
type pgEngine struct {
	pool    *pgxpool.Pool
	where   string // the URL without its password, for messages
	timeout time.Duration

	cache pgCache

	// stopListen stops the listener OnSignal started; nil if none.
	stopListen func()
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
	cfg.ConnConfig.ConnectTimeout = min(opts.Timeout, 5*time.Second)
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
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w: %w", ErrUnavailable, err)
	}
	// After the rollback below, when the transaction is over: the pool
	// closes a connection still inside one rather than reuse it.
	defer conn.Release()
	t := &pgTx{e: e, ctx: ctx, conn: conn.Conn(), writable: writable, buckets: map[string]*pgBucket{}}
	defer t.rollback() // a no-op after the commit
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
		return err
	}
	e.cache.committed(t.tick, t, t.dropped)
	return nil
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
	// key=value pairs.
	fields := strings.Fields(rawURL)
	for i, f := range fields {
		if k, _, ok := strings.Cut(f, "="); ok && k == "password" {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}
