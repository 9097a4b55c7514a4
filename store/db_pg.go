package store

// Opening the store on PostgreSQL (team mode), and its transactions.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	if writable {
		opts = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
	}
	ptx, err := e.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w: %w", ErrUnavailable, err)
	}
	defer func() {
		// A no-op after Commit. Its own deadline: ctx may be what ended.
		rctx, rcancel := context.WithTimeout(context.Background(), time.Second)
		defer rcancel()
		ptx.Rollback(rctx)
	}()
	t := &pgTx{e: e, ctx: ctx, tx: ptx, writable: writable, buckets: map[string]*pgBucket{}}
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
	if err := t.flush(); err != nil {
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		e.cache.forget()
		return fmt.Errorf("postgres: commit: %w: %w", ErrUnavailable, err)
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
	// key=value pairs: their quoting (a quoted password may hold spaces)
	// is pgx's to read, so the description is rebuilt from what it read,
	// and a password cannot be in it.
	cfg, err := pgconn.ParseConfig(rawURL)
	if err != nil {
		return "(a connection string that cannot be read)"
	}
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}
