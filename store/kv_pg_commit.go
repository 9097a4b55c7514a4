package store

// How a PostgreSQL transaction ends: its buffered writes applied by one
// statement, sb_apply, and the commit in the same round trip; or the
// rollback. An optimistic write (kv_pg_optimistic.go) commits by
// sb_commit, which checks the clock and calls sb_apply.

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgApplyFunc makes sb_apply, which writes what one transaction wrote:
// its keys (a few set-based statements, however many keys: a statement
// per key cost the server more than the rest of the call), its buckets'
// sequences, its entry in the change log (kv_pg_changes.go), and its
// signals. One statement of the client's, whose plans the server
// keeps per connection, costs less than the six it replaces.
//
// A value in the change log is pgLive followed by the value, or pgGone
// alone; the log's entry is made here from the writes, so that values
// cross the network once.
const pgApplyFunc = `CREATE OR REPLACE FUNCTION sb_apply(
		p_tick bigint, p_put_b text[], p_put_k bytea[], p_put_v bytea[],
		p_del_b text[], p_del_k bytea[], p_seq_n text[], p_seq_v bigint[],
		p_whole bool, p_prune bigint, p_notes text[])
	RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		IF cardinality(p_put_k) > 0 THEN
			INSERT INTO sb_kv (bucket, key, value) SELECT * FROM unnest(p_put_b, p_put_k, p_put_v)
			ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value;
		END IF;
		IF cardinality(p_del_k) > 0 THEN
			DELETE FROM sb_kv USING unnest(p_del_b, p_del_k) AS d (bucket, key)
			WHERE sb_kv.bucket = d.bucket AND sb_kv.key = d.key;
		END IF;
		IF cardinality(p_seq_n) > 0 THEN
			UPDATE sb_buckets SET seq = u.seq FROM unnest(p_seq_n, p_seq_v) AS u (name, seq)
			WHERE sb_buckets.name = u.name;
		END IF;
		INSERT INTO sb_changes (tick, buckets, keys, vals, seq_names, seq_values, whole)
		VALUES (p_tick, p_put_b || p_del_b, p_put_k || p_del_k,
			ARRAY(SELECT '\x01'::bytea || v FROM unnest(p_put_v) WITH ORDINALITY AS u (v, i) ORDER BY i)
				|| array_fill('\x00'::bytea, ARRAY[cardinality(p_del_k)]),
			p_seq_n, p_seq_v, p_whole);
		IF p_prune > 0 THEN
			DELETE FROM sb_changes WHERE tick <= p_prune;
		END IF;
		IF cardinality(p_notes) > 0 THEN
			PERFORM pg_notify('` + pgSignalChannel + `', k) FROM unnest(p_notes) AS k;
		END IF;
	END $$`

// pgApply calls sb_apply.
const pgApply = "SELECT sb_apply($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"

// pgWrites is what a transaction wrote, as the arrays sb_apply takes:
// each key's last value (put) or its deletion, the sequences that moved,
// the signals to send. The slices are never nil: an empty array, not
// NULL, keeps the function's array arithmetic simple.
type pgWrites struct {
	putB, delB []string
	putK, putV [][]byte
	delK       [][]byte
	seqN       []string
	seqV       []int64
	notes      []string
}

// writes collects what the transaction wrote.
func (t *pgTx) writes() pgWrites {
	w := pgWrites{
		putB: []string{}, delB: []string{}, putK: [][]byte{}, putV: [][]byte{}, delK: [][]byte{},
		seqN: []string{}, seqV: []int64{}, notes: []string{},
	}
	for _, b := range t.buckets {
		for k := range b.pending {
			if e := b.known[k]; e.ok {
				w.putB, w.putK, w.putV = append(w.putB, b.name), append(w.putK, []byte(k)), append(w.putV, e.v)
			} else {
				w.delB, w.delK = append(w.delB, b.name), append(w.delK, []byte(k))
			}
		}
		if b.seqDirty {
			w.seqN, w.seqV = append(w.seqN, b.name), append(w.seqV, int64(b.seq))
		}
	}
	sent := map[string]bool{}
	for _, k := range t.notes {
		if !sent[k] {
			sent[k] = true
			w.notes = append(w.notes, k)
		}
	}
	return w
}

// pgPrune is the change log's tick up to which the commit of tick
// prunes it, every pgPruneEvery ticks; 0 for none.
func pgPrune(tick uint64) int64 {
	if tick%pgPruneEvery == 0 && tick > pgChangeLogKeep {
		return int64(tick - pgChangeLogKeep)
	}
	return 0
}

// commit writes what the transaction keeps in memory and commits, in one
// round trip. An error may leave the outcome unknown: the connection may
// have broken after the server committed.
func (t *pgTx) commit() error {
	if t.err != nil {
		return t.err
	}
	w := t.writes()
	var batch pgx.Batch
	batch.Queue(pgApply, int64(t.tick), w.putB, w.putK, w.putV, w.delB, w.delK, w.seqN, w.seqV,
		t.dropped || t.created, pgPrune(t.tick), w.notes)
	batch.Queue("COMMIT")
	res := t.conn.SendBatch(t.ctx, &batch)
	defer res.Close()
	if _, err := res.Exec(); err != nil {
		return pgFailure("commit", err)
	}
	tag, err := res.Exec()
	if err != nil {
		return pgFailure("commit", err)
	}
	if err := t.closeBatch(res, "commit"); err != nil {
		return err
	}
	// A transaction that failed answers COMMIT with ROLLBACK, and no
	// error; none should reach here failed, but nothing may be
	// acknowledged that was not committed.
	if tag.String() != "COMMIT" {
		return fmt.Errorf("postgres: commit: %w: the server rolled the transaction back (%s)", ErrUnavailable, tag)
	}
	return nil
}

// end ends the transaction if it is still open (a read's, one that
// failed, or one whose commit did not get through) and gives the
// connection back to the pool. The rollback has its own deadline: the
// transaction's may be what ended it. A connection the rollback cannot
// reach is left inside its transaction, which the pool closes rather than
// reuse.
func (t *pgTx) end(conn *pgxpool.Conn) {
	defer conn.Release()
	if t.conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t.conn.Exec(ctx, "ROLLBACK")
}
