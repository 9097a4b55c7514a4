package store

// The PostgreSQL engine: the store's buckets as rows of two tables (see
// docs/team-mode.md). Keys are bytea, which PostgreSQL orders byte by byte
// as bbolt orders its keys, so a cursor is an ordered range read in
// batches.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgSchema makes the engine's two tables. It runs under the writer lock,
// so instances starting together make them once.
var pgSchema = []string{
	`CREATE TABLE IF NOT EXISTS sb_buckets (
		name text PRIMARY KEY,
		seq  bigint NOT NULL DEFAULT 0
	)`,
	// The clock every write transaction moves (kv_pg_cache.go).
	`CREATE TABLE IF NOT EXISTS sb_clock (
		one  bool PRIMARY KEY DEFAULT true CHECK (one),
		tick bigint NOT NULL
	)`,
	`INSERT INTO sb_clock (tick) VALUES (0) ON CONFLICT DO NOTHING`,
	`CREATE TABLE IF NOT EXISTS sb_kv (
		bucket text  NOT NULL REFERENCES sb_buckets (name) ON DELETE CASCADE,
		key    bytea NOT NULL,
		value  bytea NOT NULL,
		PRIMARY KEY (bucket, key)
	)`,
}

// pgWriterLock is the key of the transaction-level advisory lock every
// write transaction takes first: writers are serialized across instances
// as bbolt serializes them in one file. The number is "sbwriter" in ASCII.
const pgWriterLock int64 = 0x7362777269746572

// pgCursorBatch bounds the rows a cursor reads ahead in one query; it
// starts at pgCursorFirst, since most walks stop after a few rows.
const (
	pgCursorFirst = 8
	pgCursorBatch = 256
)

// pgTx is one transaction of the PostgreSQL engine. The store's bucket
// methods return no error (bbolt's reads cannot fail), so the first error
// of any statement is kept here: every later statement is skipped, and the
// transaction ends with that error, rolled back, whatever the store made of
// the missing answers.
type pgTx struct {
	e        *pgEngine
	ctx      context.Context
	conn     *pgx.Conn // a pool's, inside the transaction
	writable bool
	buckets  map[string]*pgBucket // every bucket, read as the transaction began
	// tick is the clock the transaction sees the database at (a write's
	// own tick: the state before it is tick-1); dropped says it dropped
	// a bucket.
	tick    uint64
	dropped bool
	notes   []string // signal keys to NOTIFY at commit (Tx.Notify)
	err     error
}

// fail records err as the transaction's failure, if it is the first.
func (t *pgTx) fail(what string, err error) {
	if t.err == nil {
		t.err = fmt.Errorf("postgres: %s: %w: %w", what, ErrUnavailable, err)
	}
}

// The statements that open a transaction. They are sent in the batch of
// its first reads rather than on their own (pgx's BeginTx), which saves a
// round trip per transaction.
const (
	pgBeginRead  = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	pgBeginWrite = "BEGIN ISOLATION LEVEL READ COMMITTED"
)

// begin opens the transaction, takes the writer lock (for a write
// transaction), runs setup after it when there is one (the tables, as the
// store opens), and reads every bucket's sequence, in one round trip:
// there are a few dozen buckets, and a call touches several.
func (t *pgTx) begin(setup []string) error {
	var b pgx.Batch
	if !t.writable {
		// A read's first statement fixes the snapshot the rest reads:
		// the clock and every bucket's sequence, in one.
		b.Queue(pgBeginRead)
		b.Queue("SELECT c.tick, b.name, b.seq FROM sb_clock c, sb_buckets b")
		res := t.conn.SendBatch(t.ctx, &b)
		defer res.Close()
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: begin: %w: %w", ErrUnavailable, err)
		}
		rows, err := res.Query()
		if err != nil {
			return fmt.Errorf("postgres: read the clock: %w: %w", ErrUnavailable, err)
		}
		if err := t.readBuckets(rows, true); err != nil {
			return err
		}
		return t.closeBatch(res, "read the clock")
	}
	if len(setup) > 0 {
		// As the store opens: the lock and the tables on their own, since
		// a batch prepares every statement before it runs the first (and
		// the read of sb_buckets cannot be prepared before it exists).
		if _, err := t.conn.Exec(t.ctx, pgBeginWrite); err != nil {
			return fmt.Errorf("postgres: begin: %w: %w", ErrUnavailable, err)
		}
		if _, err := t.conn.Exec(t.ctx, "SELECT pg_advisory_xact_lock($1)", pgWriterLock); err != nil {
			return fmt.Errorf("postgres: take the writer lock: %w: %w", ErrUnavailable, err)
		}
		for _, q := range setup {
			if _, err := t.conn.Exec(t.ctx, q); err != nil {
				return fmt.Errorf("postgres: make the tables: %w: %w", ErrUnavailable, err)
			}
		}
	} else {
		b.Queue(pgBeginWrite)
		b.Queue("SELECT pg_advisory_xact_lock($1)", pgWriterLock)
	}
	b.Queue("UPDATE sb_clock SET tick = tick + 1 RETURNING tick")
	b.Queue("SELECT name, seq FROM sb_buckets")
	res := t.conn.SendBatch(t.ctx, &b)
	defer res.Close()
	if len(setup) == 0 {
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: begin: %w: %w", ErrUnavailable, err)
		}
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: take the writer lock: %w: %w", ErrUnavailable, err)
		}
	}
	var tick int64
	if err := res.QueryRow().Scan(&tick); err != nil {
		return fmt.Errorf("postgres: move the clock: %w: %w", ErrUnavailable, err)
	}
	t.tick = uint64(tick)
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("postgres: read the buckets: %w: %w", ErrUnavailable, err)
	}
	if err := t.readBuckets(rows, false); err != nil {
		return err
	}
	return t.closeBatch(res, "read the buckets")
}

// closeBatch closes res, whose results have all been read.
func (t *pgTx) closeBatch(res pgx.BatchResults, what string) error {
	if err := res.Close(); err != nil {
		return fmt.Errorf("postgres: %s: %w: %w", what, ErrUnavailable, err)
	}
	return nil
}

// readBuckets reads the buckets' names and sequences from rows, and with
// withTick the clock first in each row.
func (t *pgTx) readBuckets(rows pgx.Rows, withTick bool) error {
	defer rows.Close()
	for rows.Next() {
		b := &pgBucket{t: t}
		var tick, seq int64
		var err error
		if withTick {
			err = rows.Scan(&tick, &b.name, &seq)
			t.tick = uint64(tick)
		} else {
			err = rows.Scan(&b.name, &seq)
		}
		if err != nil {
			return fmt.Errorf("postgres: read the buckets: %w: %w", ErrUnavailable, err)
		}
		b.seq = uint64(seq)
		t.buckets[b.name] = b
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: read the buckets: %w: %w", ErrUnavailable, err)
	}
	return nil
}

func (t *pgTx) bucket(name []byte) *pgBucket {
	if t.err != nil {
		return nil
	}
	return t.buckets[string(name)] // every one was read as the transaction began
}

func (t *pgTx) createBucket(name []byte, ifMissing bool) (*pgBucket, error) {
	if t.err != nil {
		return nil, t.err
	}
	if !t.writable {
		return nil, errors.New("create bucket: the transaction is read-only")
	}
	if b := t.buckets[string(name)]; b != nil {
		if !ifMissing {
			return nil, fmt.Errorf("create bucket %s: it exists already", name)
		}
		return b, nil
	}
	if _, err := t.conn.Exec(t.ctx, "INSERT INTO sb_buckets (name) VALUES ($1)", string(name)); err != nil {
		t.fail("create bucket "+string(name), err)
		return nil, t.err
	}
	b := &pgBucket{t: t, name: string(name)}
	t.buckets[b.name] = b
	return b, nil
}

func (t *pgTx) deleteBucket(name []byte) error {
	if t.err != nil {
		return t.err
	}
	// The bucket's rows go with it (ON DELETE CASCADE).
	tag, err := t.conn.Exec(t.ctx, "DELETE FROM sb_buckets WHERE name = $1", string(name))
	if err != nil {
		t.fail("delete bucket "+string(name), err)
		return t.err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete bucket %s: there is none", name)
	}
	delete(t.buckets, string(name))
	t.dropped = true
	return nil
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
	for _, b := range t.buckets {
		b.queueWrites(&batch)
		if b.seqDirty {
			batch.Queue("UPDATE sb_buckets SET seq = $2 WHERE name = $1", b.name, int64(b.seq))
			b.seqDirty = false
		}
	}
	sent := map[string]bool{}
	for _, k := range t.notes {
		if !sent[k] {
			sent[k] = true
			batch.Queue("SELECT pg_notify($1, $2)", pgSignalChannel, k)
		}
	}
	t.notes = nil
	batch.Queue("COMMIT")
	res := t.conn.SendBatch(t.ctx, &batch)
	defer res.Close()
	var tag pgconn.CommandTag
	for range batch.Len() {
		var err error
		if tag, err = res.Exec(); err != nil {
			return fmt.Errorf("postgres: commit: %w: %w", ErrUnavailable, err)
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

// rollback ends the transaction if it is still open: a read's, one that
// failed, or one whose commit did not get through. Its own deadline: the
// transaction's may be what ended it. A connection the rollback cannot
// reach is left inside its transaction, which the pool closes rather than
// reuse.
func (t *pgTx) rollback() {
	if t.conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t.conn.Exec(ctx, "ROLLBACK")
}

// send runs batch in one round trip.
func (t *pgTx) send(batch *pgx.Batch, what string) error {
	if t.err != nil || batch.Len() == 0 {
		return t.err
	}
	if err := t.conn.SendBatch(t.ctx, batch).Close(); err != nil {
		t.fail(what, err)
	}
	return t.err
}

// pgBucket is a bucket of a pgTx. Its sequence is read with it and
// written back at commit: writers are serialized, so no other transaction
// moves it meanwhile. For the same reason what the transaction has read or
// written is kept: a key is read from the server once, and writes are sent
// together, at commit or before the bucket's rows are next read in order.
type pgBucket struct {
	t        *pgTx
	name     string
	seq      uint64
	seqDirty bool
	known    map[string]pgValue // keys read or written in this transaction
	pending  map[string]bool    // keys written and not yet sent
}

// pgValue is a key's value as the transaction sees it; ok is false for a
// key that is missing or deleted.
type pgValue struct {
	v  []byte
	ok bool
}

// pgMaxKnown bounds the values a bucket keeps read: a walk of the whole log
// reads through the cursor, which keeps nothing, but a transaction of many
// lookups must not grow without end.
const pgMaxKnown = 4096

// The methods take keys and values without keeping the caller's slices:
// they copy what they keep, and pgx encodes its arguments before a query
// returns, so that keys do not escape on the bbolt path (see kv.go).

func (b *pgBucket) get(key []byte) []byte {
	t := b.t
	if t.err != nil {
		return nil
	}
	if e, ok := b.known[string(key)]; ok {
		return e.v
	}
	// What the instance knows as of the state this transaction sees: for
	// a write, the tick before its own.
	seen := t.tick
	if t.writable {
		seen--
	}
	if e, ok := t.e.cache.get(seen, b.name, string(key)); ok {
		if len(b.known) < pgMaxKnown {
			b.remember(string(key), e.v, e.ok)
		}
		return e.v
	}
	var v []byte
	err := t.conn.QueryRow(t.ctx, "SELECT value FROM sb_kv WHERE bucket = $1 AND key = $2", b.name, bytes.Clone(key)).Scan(&v)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.fail("read "+b.name, err)
		return nil
	}
	if found && v == nil {
		v = []byte{} // stored, if empty: only a missing key reads as nil
	}
	if len(b.known) < pgMaxKnown {
		b.remember(string(key), v, found)
	}
	if !t.writable {
		// A write's reads join the cache when it commits.
		t.e.cache.put(t.tick, b.name, string(key), pgValue{v, found})
	}
	return v
}

func (b *pgBucket) remember(key string, v []byte, ok bool) {
	if b.known == nil {
		b.known = map[string]pgValue{}
	}
	b.known[key] = pgValue{v, ok}
}

// write buffers the new value of key (nil with ok false: deleted).
func (b *pgBucket) write(op string, key, value []byte, ok bool) error {
	t := b.t
	switch {
	case t.err != nil:
		return t.err
	case !t.writable:
		return fmt.Errorf("%s: the transaction is read-only", op)
	case len(key) == 0:
		return fmt.Errorf("%s: the key is empty", op)
	}
	if b.pending == nil {
		b.pending = map[string]bool{}
	}
	k := string(key)
	if ok {
		value = bytes.Clone(value)
		if value == nil {
			value = []byte{}
		}
	}
	// Kept past pgMaxKnown too: a pending write is read back from here.
	b.remember(k, value, ok)
	b.pending[k] = true
	return nil
}

func (b *pgBucket) put(key, value []byte) error { return b.write("put", key, value, true) }
func (b *pgBucket) delete(key []byte) error     { return b.write("delete", key, nil, false) }

// queueWrites adds the bucket's pending writes to batch.
func (b *pgBucket) queueWrites(batch *pgx.Batch) {
	for k := range b.pending {
		e := b.known[k]
		if e.ok {
			batch.Queue(`INSERT INTO sb_kv (bucket, key, value) VALUES ($1, $2, $3)
				ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value`, b.name, []byte(k), e.v)
		} else {
			batch.Queue("DELETE FROM sb_kv WHERE bucket = $1 AND key = $2", b.name, []byte(k))
		}
	}
	clear(b.pending)
}

// sync sends the bucket's pending writes, so that a read of its rows in
// order sees them.
func (b *pgBucket) sync() error {
	if len(b.pending) == 0 {
		return b.t.err
	}
	var batch pgx.Batch
	b.queueWrites(&batch)
	return b.t.send(&batch, "write "+b.name)
}

func (b *pgBucket) nextSequence() (uint64, error) {
	if b.t.err != nil {
		return 0, b.t.err
	}
	if !b.t.writable {
		return 0, errors.New("next sequence: the transaction is read-only")
	}
	b.seq++
	b.seqDirty = true
	return b.seq, nil
}

func (b *pgBucket) setSequence(n uint64) error {
	if b.t.err != nil {
		return b.t.err
	}
	if !b.t.writable {
		return errors.New("set sequence: the transaction is read-only")
	}
	b.seq, b.seqDirty = n, true
	return nil
}

func (b *pgBucket) forEach(fn func(k, v []byte) error) error {
	c := b.cursor()
	for k, v := c.first(); k != nil; k, v = c.next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *pgBucket) cursor() *pgCursor { return &pgCursor{b: b} }

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
	if c.b.sync() != nil {
		return nil, nil
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
	rows, err := t.conn.Query(t.ctx, q, args...)
	if err != nil {
		t.fail("read "+c.b.name, err)
		return nil, nil
	}
	for rows.Next() {
		var r pgRow
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			t.fail("read "+c.b.name, err)
			return nil, nil
		}
		if r.v == nil {
			r.v = []byte{}
		}
		c.rows = append(c.rows, r)
	}
	if err := rows.Err(); err != nil {
		t.fail("read "+c.b.name, err)
		return nil, nil
	}
	c.full = len(c.rows) == c.batch
	c.batch = min(2*c.batch, pgCursorBatch)
	return c.here(desc)
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
