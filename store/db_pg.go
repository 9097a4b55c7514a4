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

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgMaxConns bounds the connections one instance holds: one writer at a
// time (the writer lock), and readers beside it.
const pgMaxConns = 16

// pgConnectTimeout bounds one connection attempt: a server that is away
// fails a call within seconds, as store_unavailable, rather than holding
// it for the transaction's whole timeout.
const pgConnectTimeout = 2 * time.Second

// pgEngine is a DB's PostgreSQL side.
type pgEngine struct {
	pool    *pgxpool.Pool
	where   string // the URL without its password, for messages
	timeout time.Duration

	// seqs is the buckets the last transaction to open found (pgTx.bucket).
	seqs atomic.Pointer[map[string]uint64]
	// stopListen stops the listener OnSignal started; nil if none.
	stopListen func()
	// closed is set by DB.Close: a transaction after it is the program's
	// mistake, not the server away, as pgFailure would take "closed pool".
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

// run runs fn in one transaction, bounded by ctx and the engine's timeout:
// a write takes the writer lock before anything else reaches the server
// and commits when fn and the engine succeeded; a read runs on a snapshot
// (REPEATABLE READ) and takes no lock. setup is SQL run first, after the
// lock: the tables, as the store opens. A caller that leaves (ctx ends)
// before the commit stops its work on the server too: pgx answers it, in a
// statement or the wait for the lock, with a cancel request.
func (e *pgEngine) run(ctx context.Context, writable bool, setup []string, fn func(kvTx) error) error {
	if e.closed.Load() {
		return errDBClosed
	}
	tctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	conn, err := e.pool.Acquire(tctx)
	if err != nil {
		return pgFailure(ctx, "connect", err)
	}
	t := &pgTx{ctx: tctx, caller: ctx, e: e, conn: conn.Conn(), writable: writable, buckets: map[string]*pgBucket{}}
	defer func() {
		if !writable && t.err == nil {
			// A read's outcome is settled once fn has its answers: the
			// caller does not wait for its rollback. DB.Close does.
			go pgEnd(conn)
			return
		}
		pgEnd(conn) // after a commit, only the release
	}()
	if len(setup) > 0 && t.setup(setup) != nil {
		return t.err
	}
	err = fn(kvTx{pg: t})
	// The engine's failure wins: what fn made of the answers it did not
	// get (a "not found", say) is not the call's outcome.
	if t.err != nil {
		return t.err
	}
	if err != nil || !writable {
		return err
	}
	return t.commit()
}

// pgEnd ends the transaction on conn if it is still open (a read's, one
// that failed, or one whose commit did not get through) and gives the
// connection back to the pool, which closes one the rollback (with a
// deadline of its own) could not reach rather than reuse it.
func pgEnd(conn *pgxpool.Conn) {
	defer conn.Release()
	if conn.Conn().PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn.Exec(ctx, "ROLLBACK")
}

var errDBClosed = errors.New("postgres: the database is closed")

// pgFailure wraps the failure of a statement the engine ran for what it
// was doing, on behalf of a caller whose context is caller. A caller that
// left (its context ended) gets its context's error: nobody waits for the
// answer, and the server was not at fault. The server being away (a lost
// or refused connection, a deadline, the server shutting down or starting
// up, too many connections) is ErrUnavailable, store_unavailable to the
// caller, who may try again; an error the server gave about the statement
// itself (a bug: a missing table, a bad query) is not, and fails the call
// as an internal error, since trying again would meet it again.
func pgFailure(caller context.Context, what string, err error) error {
	if caller.Err() != nil {
		return fmt.Errorf("postgres: %s: %w (%v)", what, context.Cause(caller), err)
	}
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
		return true // no answer at all: the connection failed or was cut, or the deadline passed
	}
	// connection_exception; admin_shutdown, cannot_connect_now, …;
	// insufficient_resources (too many connections, disk full);
	// query_canceled (statement_timeout, the deadline); a serialization
	// failure or a deadlock (nothing done: try again).
	for _, code := range []string{"08", "57P", "53", "57014", "40001", "40P01"} {
		if strings.HasPrefix(pe.Code, code) {
			return true
		}
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
