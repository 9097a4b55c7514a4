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

// pgCursor walks a bucket in key order, reading rows ahead in batches in
// the direction it last moved. The transaction's buffered writes go to the
// server in the same round trip as each batch's query, before it, so a
// batch shows them. Rows written after a batch was read are seen from the
// next batch on, as bbolt's cursors see writes only where they have not
// been yet.
type pgCursor struct {
	b     *pgBucket
	rows  []pgRow // the batch, in the direction of travel
	i     int     // the current row in rows
	desc  bool    // rows run downwards
	full  bool    // the batch was full: there may be more beyond it
	batch int     // the size of the next batch
	// off is where the cursor is after a walk left the bucket: +1 past
	// the end, -1 before the start, 0 on a row. edge is the row a step
	// off the end left it on, nil if it got there otherwise.
	off  int
	edge []byte
}

type pgRow struct{ k, v []byte }

// read fills the batch with the rows from key (exclusive unless incl; nil
// is the bucket's end in the direction) in direction desc, after the
// transaction's buffered writes, and moves to its first.
func (c *pgCursor) read(from []byte, incl, desc bool) ([]byte, []byte) {
	t := c.b.t
	c.rows, c.i, c.desc, c.full, c.edge = c.rows[:0], 0, desc, false, nil
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
	q, args := "SELECT key, value FROM sb_kv WHERE bucket = $1", []any{c.b.name}
	if from != nil {
		q, args = q+" AND key "+op+" $2", append(args, from)
	}
	var b pgx.Batch
	t.queueWrites(&b)
	b.Queue(q+fmt.Sprintf(" ORDER BY key %s LIMIT %d", order, c.batch), args...).Query(func(rows pgx.Rows) error {
		var r pgRow
		_, err := pgx.ForEachRow(rows, []any{&r.k, &r.v}, func() error {
			if r.v == nil {
				r.v = []byte{}
			}
			c.rows = append(c.rows, r)
			r = pgRow{} // Scan reuses no slice of a row already kept
			return nil
		})
		return err
	})
	if t.send(t.ctx, "read "+c.b.name, &b); t.err != nil {
		c.rows, c.i, c.off = c.rows[:0], 0, 1 // every later step answers nothing
		return nil, nil
	}
	c.full = len(c.rows) == c.batch
	c.batch = min(2*c.batch, pgCursorBatch)
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

// start reads the first batch of a walk, which is a small one.
func (c *pgCursor) start(from []byte, incl, desc bool) ([]byte, []byte) {
	c.batch = 0
	return c.read(from, incl, desc)
}

func (c *pgCursor) first() ([]byte, []byte)          { return c.start(nil, false, false) }
func (c *pgCursor) last() ([]byte, []byte)           { return c.start(nil, false, true) }
func (c *pgCursor) seek(key []byte) ([]byte, []byte) { return c.start(bytes.Clone(key), true, false) }

// step moves one row in direction desc. As bbolt's cursor does, one that
// stepped off an end stays on the row it stepped from, so a step back
// returns the row before that one; one that a seek put past the end (or
// that walks an empty bucket) is on no row, and a step back returns the
// last.
func (c *pgCursor) step(desc bool) ([]byte, []byte) {
	switch {
	case c.off != 0 && c.edge != nil && (c.off == 1) == desc:
		return c.read(c.edge, false, desc)
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
			// Off the end: the rows read show there is nothing beyond.
			c.edge, c.i, c.off = c.rows[c.i].k, len(c.rows), 1
			if desc {
				c.off = -1
			}
			return nil, nil
		}
	}
	// The batch is spent, or the cursor turns: read on from the current
	// row in the new direction.
	from := c.rows[c.i].k
	k, v := c.read(from, false, desc)
	if k == nil && c.b.t.err == nil {
		c.edge = from
	}
	return k, v
}

func (c *pgCursor) next() ([]byte, []byte) { return c.step(false) }
func (c *pgCursor) prev() ([]byte, []byte) { return c.step(true) }
