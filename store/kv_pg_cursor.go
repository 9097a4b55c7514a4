package store

// The PostgreSQL engine's cursors: a bucket's rows in key order, read in
// batches of a range query each.

import (
	"bytes"
	"fmt"
	"slices"
)

// pgCursorBatch bounds the rows a cursor reads ahead in one query; it
// starts at pgCursorFirst, since most walks stop after a few rows.
const (
	pgCursorFirst = 8
	pgCursorBatch = 256
)

// pgCursor walks a bucket in key order, reading rows ahead in batches, in
// the direction it last moved, with the transaction's own writes laid
// over each batch. Rows written by the transaction after a batch was read
// are seen from the next batch on, as bbolt's cursors see writes only
// where they have not been yet.
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
// is the bucket's end in the direction) in direction desc, and moves to
// its first.
func (c *pgCursor) read(from []byte, incl, desc bool) ([]byte, []byte) {
	t := c.b.t
	c.rows, c.i, c.desc, c.full, c.edge = c.rows[:0], 0, desc, false, nil
	if c.batch == 0 {
		c.batch = pgCursorFirst
	}
	for {
		if t.err != nil {
			return c.failed()
		}
		last, ok := c.readHeld(from, incl, desc)
		if !ok {
			if t.err != nil || !t.server() {
				return c.failed()
			}
			if last, ok = c.readServer(from, incl, desc); !ok {
				return c.failed()
			}
			c.full = len(c.rows) == c.batch
		}
		c.batch = min(2*c.batch, pgCursorBatch)
		c.overlay(from, incl, last)
		if len(c.rows) > 0 || !c.full {
			return c.here(desc)
		}
		// The transaction deleted every row the batch read, and there
		// may be more beyond them.
		from, incl = last, false
	}
}

// readServer reads the batch's rows as the server has them, and returns
// the last one's key. An optimistic write's read carries the clock, to
// learn that its snapshot is gone (kv_pg_optimistic.go).
func (c *pgCursor) readServer(from []byte, incl, desc bool) ([]byte, bool) {
	t := c.b.t
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
	rows, ok := t.queryRows(c.b.name, q, order, args...)
	if !ok {
		return nil, false
	}
	c.rows = append(c.rows, rows...)
	if len(rows) == 0 {
		return nil, true
	}
	return rows[len(rows)-1].k, true
}

// queryRows runs q, a query of the key and value of bucket's rows in
// order (ASC or DESC), and returns them. An optimistic write's query
// carries the clock, and one past its snapshot ends the write.
func (t *pgTx) queryRows(bucket, q, order string, args ...any) ([]pgRow, bool) {
	if t.optimistic {
		q = "SELECT c.tick, r.key, r.value FROM sb_clock c LEFT JOIN LATERAL (" + q + ") r ON true ORDER BY r.key " + order
	}
	rows, err := t.conn.Query(t.ctx, q, args...)
	if err != nil {
		t.fail("read "+bucket, err)
		return nil, false
	}
	defer rows.Close()
	var out []pgRow
	for rows.Next() {
		var r pgRow
		var tick int64
		if t.optimistic {
			err = rows.Scan(&tick, &r.k, &r.v)
		} else {
			err = rows.Scan(&r.k, &r.v)
		}
		if err != nil {
			t.fail("read "+bucket, err)
			return nil, false
		}
		if t.optimistic && !t.at(uint64(tick)) {
			return nil, false
		}
		if r.k == nil {
			continue // an optimistic read of an empty range: the clock alone
		}
		if r.v == nil {
			r.v = []byte{}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.fail("read "+bucket, err)
		return nil, false
	}
	return out, true
}

// overlay lays the transaction's own writes to the bucket over the batch
// just read: writes are sent at commit, so the server's rows are the
// bucket as the transaction began. The batch stands for the keys from
// from (exclusive unless incl; nil: the bucket's end) to its last row
// last, or on to the bucket's other end when it was not full; a written
// key in that span is added, replaced or taken out.
func (c *pgCursor) overlay(from []byte, incl bool, last []byte) {
	b := c.b
	if len(b.pending) == 0 {
		return
	}
	// before reports that key x comes before y in the direction of travel.
	before := func(x, y []byte) bool {
		if c.desc {
			return bytes.Compare(x, y) > 0
		}
		return bytes.Compare(x, y) < 0
	}
	inSpan := func(k []byte) bool {
		if from != nil && (before(k, from) || (!incl && bytes.Equal(k, from))) {
			return false
		}
		return !c.full || !before(last, k)
	}
	var touched bool
	written := map[string]bool{}
	for k := range b.pending {
		if inSpan([]byte(k)) {
			written[k], touched = true, true
		}
	}
	if !touched {
		return
	}
	rows := c.rows[:0:0]
	for _, r := range c.rows {
		if !written[string(r.k)] {
			rows = append(rows, r)
		}
	}
	for k := range written {
		if e := b.known[k]; e.ok {
			rows = append(rows, pgRow{[]byte(k), e.v})
		}
	}
	slices.SortFunc(rows, func(x, y pgRow) int {
		if c.desc {
			return bytes.Compare(y.k, x.k)
		}
		return bytes.Compare(x.k, y.k)
	})
	c.rows = rows
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
			c.edge, c.i = c.rows[c.i].k, len(c.rows)
			return c.here(desc)
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
