package store

// How a PostgreSQL transaction ends: its buffered writes sent in a few
// statements, and the commit in the same round trip; or the rollback.

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The statements that send a transaction's buffered writes: a few for the
// whole transaction, however many keys it wrote, since a statement per key
// (a call writes about ten) cost the server more than the rest of the call.
const (
	pgPutRows = `INSERT INTO sb_kv (bucket, key, value)
		SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[])
		ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value`
	pgDeleteRows = `DELETE FROM sb_kv USING unnest($1::text[], $2::bytea[]) AS d (bucket, key)
		WHERE sb_kv.bucket = d.bucket AND sb_kv.key = d.key`
	pgSetSequences = `UPDATE sb_buckets SET seq = u.seq
		FROM unnest($1::text[], $2::bigint[]) AS u (name, seq) WHERE sb_buckets.name = u.name`
	pgNotify = "SELECT pg_notify($1, k) FROM unnest($2::text[]) AS k"
)

// queuePending adds every bucket's pending writes to batch and returns the
// statements it added: a key's last write only, so that no statement
// touches a row twice.
func (t *pgTx) queuePending(batch *pgx.Batch) int {
	var put, del struct {
		buckets      []string
		keys, values [][]byte
	}
	for _, b := range t.buckets {
		for k := range b.pending {
			w := &del
			e := b.known[k]
			if e.ok {
				w = &put
				w.values = append(w.values, e.v)
			}
			w.buckets, w.keys = append(w.buckets, b.name), append(w.keys, []byte(k))
		}
		clear(b.pending)
	}
	n := 0
	if len(put.keys) > 0 {
		batch.Queue(pgPutRows, put.buckets, put.keys, put.values)
		n++
	}
	if len(del.keys) > 0 {
		batch.Queue(pgDeleteRows, del.buckets, del.keys)
		n++
	}
	return n
}

// commit writes what the transaction keeps in memory (every bucket's
// buffered writes, the sequences that moved, the signals to send) and
// commits, in one round trip. An error may leave the outcome unknown: the
// connection may have broken after the server committed.
func (t *pgTx) commit() error {
	if t.err != nil {
		return t.err
	}
	var batch pgx.Batch
	t.queuePending(&batch)
	var names []string
	var seqs []int64
	for _, b := range t.buckets {
		if b.seqDirty {
			names, seqs = append(names, b.name), append(seqs, int64(b.seq))
			b.seqDirty = false
		}
	}
	if len(names) > 0 {
		batch.Queue(pgSetSequences, names, seqs)
	}
	t.queueChange(&batch, names, seqs)
	var keys []string
	sent := map[string]bool{}
	for _, k := range t.notes {
		if !sent[k] {
			sent[k] = true
			keys = append(keys, k)
		}
	}
	t.notes = nil
	if len(keys) > 0 {
		batch.Queue(pgNotify, pgSignalChannel, keys)
	}
	batch.Queue("COMMIT")
	res := t.conn.SendBatch(t.ctx, &batch)
	defer res.Close()
	var tag pgconn.CommandTag
	for range batch.Len() {
		var err error
		if tag, err = res.Exec(); err != nil {
			return pgFailure("commit", err)
		}
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
