package store

// Signals between instances: what a committed write may have changed,
// told to every instance that shares the database, so that an agent
// waiting on one instance wakes when another instance commits the packet
// it waits for. They ride PostgreSQL's NOTIFY, which delivers a
// transaction's notifications when it commits and never when it rolls
// back; each instance LISTENs on a connection of its own.

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgSignalChannel is the NOTIFY channel of the signals.
const pgSignalChannel = "sb_signal"

// pgListenRetry is how long the listener waits before connecting again
// after it lost the server.
const pgListenRetry = time.Second

// Notify tells every instance sharing the database, when tx commits, that
// what key names may have changed: the registry's signal keys (a
// repository's queue, a question). The instance that commits signals its
// own waiters itself; on bbolt, which has one instance, Notify does
// nothing.
func (tx *Tx) Notify(key string) {
	if t := tx.tx.pg; t != nil && t.writable && key != "" && !slices.Contains(t.notes, key) {
		t.notes = append(t.notes, key)
	}
}

// OnSignal has fn called with each key the instances' transactions
// Notify (this one's own included), as they commit, and with "" whenever
// notifications may have been missed (the listener has just connected) or
// it finds the server away: then waiters look again, and a long poll
// learns within a second that the store is away (its next transaction
// fails with ErrUnavailable) rather than wait for a signal that cannot
// come. The program calls it once, as it starts
// (mcpserver.Registry.HearOtherInstances); a second call replaces the
// first's listener, which stops when the DB closes. On bbolt it does
// nothing.
func (db *DB) OnSignal(fn func(key string)) {
	if db.pg == nil {
		return
	}
	if db.pg.stopListen != nil {
		db.pg.stopListen()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	db.pg.stopListen = func() { cancel(); <-done }
	go func() {
		defer close(done)
		db.pg.listen(ctx, fn)
	}()
}

// listen holds a connection that LISTENs for signals until ctx ends,
// connecting again after a loss.
func (e *pgEngine) listen(ctx context.Context, fn func(string)) {
	for ctx.Err() == nil {
		// A lost connection is tried again; the "" that follows a new
		// LISTEN covers what was missed meanwhile.
		e.listenOnce(ctx, fn)
		if ctx.Err() == nil {
			// Lost, or not reached: once a retry while the server
			// stays away. The waiters' next transactions tell.
			fn("")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pgListenRetry):
		}
	}
}

func (e *pgEngine) listenOnce(ctx context.Context, fn func(string)) error {
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	conn, err := pgx.ConnectConfig(cctx, e.pool.Config().ConnConfig.Copy())
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgSignalChannel); err != nil {
		return err
	}
	// What was committed before the LISTEN took hold was not heard.
	fn("")
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}
