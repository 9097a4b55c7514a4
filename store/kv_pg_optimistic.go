package store

// Optimistic writes on PostgreSQL. A write transaction that takes the
// writer lock holds it across its round trips (begin, the reads the
// instance cache cannot answer, commit), and two instances then take
// turns at the pace of those round trips. A function that may run more
// than once (DB.Write: the registry's calls) runs instead on the
// instance's snapshot, the cache as of one tick of the clock, with no
// server transaction open, reading what the cache lacks from the server
// with the clock beside it; then one statement, sb_commit, moves the
// clock only if it is still at the snapshot's tick and applies the
// writes (sb_apply). The clock's row lock is held for that statement
// alone. Had another transaction committed since the snapshot, nothing
// is written, and sb_commit answers with the change log's entries since:
// the cache catches up by them and the function runs again. So every
// commit is of a transaction that saw the database exactly as of the
// tick before its own, as with one writer at a time; after a few tries
// (two instances writing hard) the write takes the lock.

import (
	"context"
	"errors"
)

// pgCommitFunc makes sb_commit: the clock moved from p_expect, or if it
// is not there, no write and the change log's entries since p_expect (at
// most p_catch_up), as pgReadClockChanges reads them. The first column
// says which.
//
// The clock's UPDATE waits for a writer that holds the row (one under the
// writer lock moved it as it began) and then sees that writer's tick, so
// the two kinds of write exclude each other with no lock of their own.
const pgCommitFunc = `CREATE OR REPLACE FUNCTION sb_commit(
		p_expect bigint, p_put_b text[], p_put_k bytea[], p_put_v bytea[],
		p_del_b text[], p_del_k bytea[], p_seq_n text[], p_seq_v bigint[],
		p_prune bigint, p_notes text[], p_catch_up bigint)
	RETURNS TABLE (o_committed bool, o_tick bigint, o_ch_tick bigint, o_buckets text[], o_keys bytea[],
		o_vals bytea[], o_seq_names text[], o_seq_values bigint[], o_whole bool)
	LANGUAGE plpgsql AS $$
	DECLARE
		v_tick bigint;
	BEGIN
		UPDATE sb_clock SET tick = tick + 1 WHERE tick = p_expect RETURNING tick INTO v_tick;
		IF NOT FOUND THEN
			RETURN QUERY SELECT false, c.tick, ch.tick, ch.buckets, ch.keys, ch.vals, ch.seq_names, ch.seq_values, ch.whole
				FROM sb_clock c LEFT JOIN sb_changes ch
				ON ch.tick > p_expect AND ch.tick <= c.tick AND ch.tick <= p_expect + p_catch_up ORDER BY ch.tick;
			RETURN;
		END IF;
		PERFORM sb_apply(v_tick, p_put_b, p_put_k, p_put_v, p_del_b, p_del_k, p_seq_n, p_seq_v,
			false, p_prune, p_notes);
		RETURN QUERY SELECT true, v_tick, NULL::bigint, NULL::text[], NULL::bytea[], NULL::bytea[],
			NULL::text[], NULL::bigint[], NULL::bool;
	END $$`

const pgCommit = "SELECT * FROM sb_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"

// pgOptimisticTries bounds the optimistic runs of one write before it
// takes the writer lock, which always gets through.
const pgOptimisticTries = 3

// Why an optimistic run ends without an outcome: errStale, another
// transaction committed since its snapshot (it runs again, caught up);
// errNeedLock, it cannot run optimistically at all (it makes or drops a
// bucket, or the cache cannot catch up) and takes the writer lock.
var (
	errStale    = errors.New("postgres: the snapshot is behind the clock")
	errNeedLock = errors.New("postgres: the write needs the writer lock")
)

// at reports whether tick, the clock a read of the server saw, is the
// snapshot's; if not, the optimistic run ends with errStale.
func (t *pgTx) at(tick uint64) bool {
	if tick == t.seen() {
		return true
	}
	if t.err == nil {
		t.err = errStale
	}
	return false
}

// write runs fn as DB.Write does: optimistically while that gets through,
// else under the writer lock.
func (e *pgEngine) write(fn func(kvTx) error) error {
	for range pgOptimisticTries {
		err := e.runOptimistic(fn)
		if err == errNeedLock {
			break
		}
		if err != errStale {
			return err
		}
	}
	return e.run(true, nil, fn)
}

// runOptimistic runs fn once on the instance's snapshot and commits it if
// nobody else has committed since. It returns errStale when fn is to run
// again, errNeedLock when it is to run under the lock.
func (e *pgEngine) runOptimistic(fn func(kvTx) error) error {
	if e.closed.Load() {
		return errDBClosed
	}
	at, seqs := e.cache.buckets()
	if seqs == nil {
		return errNeedLock // the cache knows nothing: a locked write fills it
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return pgFailure("connect", err)
	}
	defer conn.Release()
	t := &pgTx{e: e, ctx: ctx, conn: conn.Conn(), writable: true, optimistic: true,
		tick: at + 1, seqs: seqs, buckets: map[string]*pgBucket{}}
	err = fn(kvTx{pg: t})
	if t.err == errStale || (t.err == nil && err != nil) {
		// A read met the clock further on; or fn failed, which stands
		// only if the snapshot was the database's: what fn did not find
		// (a packet to claim, say, that another instance has just
		// queued and signalled) may be there now. Nothing was sent, so
		// nothing is rolled back.
		tick, changes, rerr := e.readClockChanges(ctx, at)
		switch {
		case rerr != nil:
			return rerr
		case tick != at:
			return e.caughtUp(at, tick, changes)
		case t.err != nil:
			return t.err // stale, yet the clock is where it was: run again
		}
		return err
	}
	if t.err != nil {
		return t.err
	}
	committed, tick, changes, err := t.commitOptimistic()
	if err != nil {
		// The outcome may be unknown (the answer was lost): the cache
		// cannot say what the database holds.
		e.cache.forget()
		return err
	}
	if !committed {
		return e.caughtUp(at, tick, changes)
	}
	e.cache.committed(tick, t, false)
	return nil
}

// caughtUp moves the cache from tick at to tick by changes, after an
// optimistic run found another transaction's commits there, and returns
// errStale to run again; errNeedLock if the cache cannot catch up.
func (e *pgEngine) caughtUp(at, tick uint64, changes []pgChange) error {
	if e.cache.catchUp(at, tick, changes) == nil {
		return errNeedLock
	}
	return errStale
}

// commitOptimistic sends sb_commit: the writes, if the clock is still at
// the snapshot's tick. It returns whether they committed, and the tick
// they committed as or, if not, the clock and the change log since the
// snapshot.
func (t *pgTx) commitOptimistic() (bool, uint64, []pgChange, error) {
	w := t.writes()
	rows, err := t.conn.Query(t.ctx, pgCommit, int64(t.tick-1), w.putB, w.putK, w.putV, w.delB, w.delK,
		w.seqN, w.seqV, pgPrune(t.tick), w.notes, int64(pgCatchUp))
	if err != nil {
		return false, 0, nil, pgFailure("commit", err)
	}
	var committed bool
	tick, changes, err := scanClockChanges(rows, "commit", &committed)
	return committed, tick, changes, err
}
