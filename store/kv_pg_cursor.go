package store

// The PostgreSQL engine's cursors: a bucket's rows in key order, read in
// batches of a range query each.

import (
	"bytes"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pgCursorBatch bounds the rows a cursor reads ahead in one query; it
// starts at pgCursorFirst, since most walks stop after a few rows.
const (
	pgCursorFirst = 8
	pgCursorBatch = 256
)

// pgCursor walks a bucket in key order, reading rows ahead in batches, in
// the direction it last moved. Rows written by the transaction after a
// batch was read are seen from the next batch on, as bbolt's cursors see
// writes only where they have not been yet.
type pgCursor struct {
	b     *pgBucket
	rows  []pgRow // the batch, in the direction of travel
	i     int     // the current row in rows
	desc  bool    // rows run downwards
	full  bool    // the batch was full: there may be more beyond it
	batch int     // the size of the next batch
	// off is where the cursor is after a walk left the bucket: +1 past
	// the end, -1 before the start, 0 on a row.
	off int
}

type pgRow struct{ k, v []byte }

// read fills the batch with the rows from key (exclusive unless incl; nil
// is the bucket's end in the direction) in direction desc, and moves to
// its first.
func (c *pgCursor) read(from []byte, incl, desc bool) ([]byte, []byte) {
	t := c.b.t
	c.rows, c.i, c.desc, c.full = c.rows[:0], 0, desc, false
	if t.err != nil || !t.server() {
		return c.failed()
	}
	if c.batch == 0 {
		c.batch = pgCursorFirst
	}
	op, order := ">", "ASC"
	if desc {
		op, order = "<", "DESC"
	}
	if incl {
		op += "="
	}
	q := "SELECT key, value FROM sb_kv WHERE bucket = $1"
	args := []any{c.b.name}
	if from != nil {
		q += " AND key " + op + " $2"
		args = append(args, from)
	}
	q += fmt.Sprintf(" ORDER BY key %s LIMIT %d", order, c.batch)
	// The transaction's pending writes go first, in the same round trip,
	// so that the rows read in order include them.
	var batch pgx.Batch
	writes := t.queuePending(&batch)
	batch.Queue(q, args...)
	res := t.conn.SendBatch(t.ctx, &batch)
	defer res.Close()
	for range writes {
		if _, err := res.Exec(); err != nil {
			t.fail("write", err)
			return c.failed()
		}
	}
	rows, err := res.Query()
	if err != nil {
		t.fail("read "+c.b.name, err)
		return c.failed()
	}
	for rows.Next() {
		var r pgRow
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			t.fail("read "+c.b.name, err)
			return c.failed()
		}
		if r.v == nil {
			r.v = []byte{}
		}
		c.rows = append(c.rows, r)
	}
	if err := rows.Err(); err != nil {
		t.fail("read "+c.b.name, err)
		return c.failed()
	}
	c.full = len(c.rows) == c.batch
	c.batch = min(2*c.batch, pgCursorBatch)
	return c.here(desc)
}

// failed leaves the cursor off the bucket's end after a read that failed
// (the transaction ends with the error): every later step answers
// nothing.
func (c *pgCursor) failed() ([]byte, []byte) {
	c.rows, c.i, c.off = c.rows[:0], 0, 1
	return nil, nil
}

// here returns the current row, or nil with the cursor off the end it ran
// past.
func (c *pgCursor) here(desc bool) ([]byte, []byte) {
	if c.i < len(c.rows) {
		c.off = 0
		return c.rows[c.i].k, c.rows[c.i].v
	}
	c.off = 1
	if desc {
		c.off = -1
	}
	return nil, nil
}

func (c *pgCursor) first() ([]byte, []byte) {
	c.batch = 0
	return c.read(nil, false, false)
}

func (c *pgCursor) last() ([]byte, []byte) {
	c.batch = 0
	return c.read(nil, false, true)
}

func (c *pgCursor) seek(key []byte) ([]byte, []byte) {
	c.batch = 0
	return c.read(bytes.Clone(key), true, false)
}

// step moves one row in direction desc.
func (c *pgCursor) step(desc bool) ([]byte, []byte) {
	switch {
	case c.off == 1 && desc:
		return c.last() // back from past the end: the last row
	case c.off == -1 && !desc:
		return c.first()
	case c.off != 0:
		return nil, nil // further off the end it is already past
	case c.desc == desc:
		if c.i+1 < len(c.rows) {
			c.i++
			return c.rows[c.i].k, c.rows[c.i].v
		}
		if !c.full {
			c.i = len(c.rows)
			return c.here(desc)
		}
	}
	// The batch is spent, or the cursor turns: read on from the current
	// row in the new direction.
	return c.read(c.rows[c.i].k, false, desc)
}

func (c *pgCursor) next() ([]byte, []byte) { return c.step(false) }
func (c *pgCursor) prev() ([]byte, []byte) { return c.step(true) }
