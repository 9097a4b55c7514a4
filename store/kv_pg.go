package store

// The PostgreSQL engine: the store's buckets as rows of two tables (see
// docs/team-mode.md). Keys are bytea, which PostgreSQL orders byte by byte
// as bbolt orders its keys, so a cursor is an ordered range read in
// batches (kv_pg_cursor.go).
//
// A transaction is a server transaction on one connection: a write takes
// the writer lock first, so writes happen one at a time across every
// instance, as in one bbolt file; a read runs on a REPEATABLE READ
// snapshot and takes no lock. Nothing is kept between transactions.

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pgSchema makes the engine's tables. It runs under the writer lock, so
// instances starting together make them once.
var pgSchema = []string{
	`CREATE TABLE IF NOT EXISTS sb_buckets (
		name text PRIMARY KEY,
		seq  bigint NOT NULL DEFAULT 0
	)`,
	`CREATE TABLE IF NOT EXISTS sb_kv (
		bucket text  NOT NULL REFERENCES sb_buckets (name) ON DELETE CASCADE,
		key    bytea NOT NULL,
		value  bytea NOT NULL,
		PRIMARY KEY (bucket, key)
	)`,
	// The engine before this one kept an instance cache checked against
	// a clock (sb_clock) and a change log (sb_changes). An instance of
	// that version still running beside this one would trust its cache
	// past writes that no longer move the clock; dropping them makes it
	// fail loudly instead.
	`DROP FUNCTION IF EXISTS sb_commit, sb_apply`,
	`DROP TABLE IF EXISTS sb_changes, sb_clock`,
	// lz4 costs the server less than its default pglz for the values; a
	// server without lz4 (or older than 14) keeps its default, since it
	// is only ever a matter of speed.
	`DO $$ BEGIN
		ALTER TABLE sb_kv ALTER COLUMN value SET COMPRESSION lz4;
	EXCEPTION WHEN OTHERS THEN NULL;
	END $$`,
}

// pgWriterLock is the key of the transaction-level advisory lock every
// write transaction takes first: writers are serialized across instances
// as bbolt serializes them in one file. The number is "sbwriter" in ASCII.
const pgWriterLock int64 = 0x7362777269746572

// The statements that open a transaction, sent in one batch with the read
// of the buckets rather than on their own (pgx's BeginTx), which saves a
// round trip per transaction.
const (
	pgBeginRead   = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	pgBeginWrite  = "BEGIN ISOLATION LEVEL READ COMMITTED"
	pgTakeLock    = "SELECT pg_advisory_xact_lock($1)"
	pgReadBuckets = "SELECT name, seq FROM sb_buckets"
)

// pgApply writes what a transaction has buffered, in one statement however
// many keys: its puts and deletes, the sequences it moved, and its
// signals, which PostgreSQL delivers when the transaction commits and
// never if it rolls back. A statement per key cost the server more than
// the rest of the call.
const pgApply = `WITH put AS (
		INSERT INTO sb_kv (bucket, key, value) SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[])
		ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value
	), del AS (
		DELETE FROM sb_kv USING unnest($4::text[], $5::bytea[]) AS d (bucket, key)
		WHERE sb_kv.bucket = d.bucket AND sb_kv.key = d.key
	), seq AS (
		UPDATE sb_buckets SET seq = u.seq FROM unnest($6::text[], $7::bigint[]) AS u (name, seq)
		WHERE sb_buckets.name = u.name
	)
	SELECT count(pg_notify('` + pgSignalChannel + `', n)) FROM unnest($8::text[]) AS n`

// pgTx is one transaction of the PostgreSQL engine. The store's bucket
// methods return no error (bbolt's reads cannot fail), so the first error
// of any statement is kept here: every later statement is skipped, and the
// transaction ends with that error, rolled back, whatever the store made of
// the missing answers.
type pgTx struct {
	// ctx bounds every statement: the caller's context with the
	// transaction's deadline. caller is the caller's alone, to tell a
	// caller that left from a server that failed.
	ctx, caller context.Context
	conn        *pgx.Conn // a pool's, inside the transaction
	writable    bool
	// seqs is every bucket and its sequence as the transaction began;
	// buckets holds those the transaction has used.
	seqs    map[string]uint64
	buckets map[string]*pgBucket
	// dirty says some bucket holds writes not yet sent; notes are the
	// signal keys to send (Tx.Notify).
	dirty bool
	notes []string
	err   error
}

// fail records the failure of a statement the transaction ran for what,
// if it is the first.
func (t *pgTx) fail(what string, err error) {
	if t.err == nil {
		t.err = pgFailure(t.caller, what, err)
	}
}

// begin opens the transaction, takes the writer lock (for a write), runs
// setup after it when there is one (the tables, as the store opens), and
// reads every bucket's sequence: there are a few dozen buckets, and a call
// touches several. All in one round trip but when setup runs.
func (t *pgTx) begin(setup []string) error {
	var b pgx.Batch
	if t.writable {
		b.Queue(pgBeginWrite)
		b.Queue(pgTakeLock, pgWriterLock)
	} else {
		b.Queue(pgBeginRead)
	}
	if len(setup) > 0 {
		// On their own: a batch prepares every statement before it runs
		// the first, and the read of sb_buckets cannot be prepared
		// before the table exists.
		if err := t.conn.SendBatch(t.ctx, &b).Close(); err != nil {
			return pgFailure(t.caller, "begin", err)
		}
		for _, q := range setup {
			if _, err := t.conn.Exec(t.ctx, q); err != nil {
				return pgFailure(t.caller, "make the tables", err)
			}
		}
		b = pgx.Batch{}
	}
	b.Queue(pgReadBuckets)
	res := t.conn.SendBatch(t.ctx, &b)
	defer res.Close()
	for range b.Len() - 1 {
		if _, err := res.Exec(); err != nil {
			return pgFailure(t.caller, "begin", err)
		}
	}
	rows, err := res.Query()
	if err != nil {
		return pgFailure(t.caller, "read the buckets", err)
	}
	t.seqs = map[string]uint64{}
	var name string
	var seq int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &seq}, func() error {
		t.seqs[name] = uint64(seq)
		return nil
	}); err != nil {
		return pgFailure(t.caller, "read the buckets", err)
	}
	if err := res.Close(); err != nil {
		return pgFailure(t.caller, "begin", err)
	}
	return nil
}

// bucket returns the bucket named name, nil if there is none. After a
// failure it still returns the buckets there are, whose methods then
// answer nothing: the store takes the buckets its migrations made as
// given, and a nil one would have it dereference nil (kvBucket's bbolt
// side) rather than end with the transaction's error.
func (t *pgTx) bucket(name []byte) *pgBucket {
	if b := t.buckets[string(name)]; b != nil {
		return b
	}
	seq, ok := t.seqs[string(name)]
	if !ok {
		return nil
	}
	b := &pgBucket{t: t, name: string(name), seq: seq}
	t.buckets[b.name] = b
	return b
}

// createBucket and deleteBucket run at once, not at commit: only
// migrations make or drop buckets, and a write buffered for a bucket must
// find its row there.
func (t *pgTx) createBucket(name []byte, ifMissing bool) (*pgBucket, error) {
	if t.err != nil {
		return nil, t.err
	}
	if !t.writable {
		return nil, errors.New("create bucket: the transaction is read-only")
	}
	if b := t.bucket(name); b != nil {
		if !ifMissing {
			return nil, fmt.Errorf("create bucket %s: it exists already", name)
		}
		return b, nil
	}
	if _, err := t.conn.Exec(t.ctx, "INSERT INTO sb_buckets (name) VALUES ($1)", string(name)); err != nil {
		t.fail("create bucket "+string(name), err)
		return nil, t.err
	}
	t.seqs[string(name)] = 0
	return t.bucket(name), nil
}

func (t *pgTx) deleteBucket(name []byte) error {
	if t.err != nil {
		return t.err
	}
	if !t.writable {
		return errors.New("delete bucket: the transaction is read-only")
	}
	// The bucket's rows go with it (ON DELETE CASCADE), and so do the
	// writes buffered for it, with its pgBucket.
	tag, err := t.conn.Exec(t.ctx, "DELETE FROM sb_buckets WHERE name = $1", string(name))
	if err != nil {
		t.fail("delete bucket "+string(name), err)
		return t.err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete bucket %s: there is none", name)
	}
	delete(t.seqs, string(name))
	delete(t.buckets, string(name))
	return nil
}

// queueWrites adds to b the statement that sends what the transaction has
// buffered, if it has any, and empties the buffer.
func (t *pgTx) queueWrites(b *pgx.Batch) {
	if !t.dirty && len(t.notes) == 0 {
		return
	}
	// Empty arrays, never NULL: unnest of NULL is an error.
	putB, putK, putV := []string{}, [][]byte{}, [][]byte{}
	delB, delK := []string{}, [][]byte{}
	seqN, seqV := []string{}, []int64{}
	for _, bk := range t.buckets {
		for k := range bk.pending {
			if v := bk.known[k]; v.ok {
				putB, putK, putV = append(putB, bk.name), append(putK, []byte(k)), append(putV, v.v)
			} else {
				delB, delK = append(delB, bk.name), append(delK, []byte(k))
			}
		}
		if bk.seqDirty {
			seqN, seqV = append(seqN, bk.name), append(seqV, int64(bk.seq))
		}
		bk.pending, bk.seqDirty = nil, false
	}
	b.Queue(pgApply, putB, putK, putV, delB, delK, seqN, seqV, t.notes)
	t.dirty, t.notes = false, nil
}

// commit sends the buffered writes and COMMIT, in one round trip. An error
// may leave the outcome unknown: the connection may have broken after the
// server committed. The caller was told nothing was acknowledged, and a
// retry meets what it did (lease_lost, invalid_state), never a double.
func (t *pgTx) commit() error {
	var b pgx.Batch
	t.queueWrites(&b)
	b.Queue("COMMIT")
	// A caller leaving now would make the outcome unknown (committed, yet
	// answered as cancelled): a commit is seen through, by its deadline.
	deadline, _ := t.ctx.Deadline()
	ctx, cancel := context.WithDeadline(context.WithoutCancel(t.ctx), deadline)
	defer cancel()
	res := t.conn.SendBatch(ctx, &b)
	defer res.Close()
	var tag []byte
	for range b.Len() {
		ct, err := res.Exec()
		if err != nil {
			return pgFailure(t.caller, "commit", err)
		}
		tag = []byte(ct.String())
	}
	if err := res.Close(); err != nil {
		return pgFailure(t.caller, "commit", err)
	}
	// A transaction that failed answers COMMIT with ROLLBACK, and no
	// error; none should reach here failed, but nothing may be
	// acknowledged that was not committed.
	if string(tag) != "COMMIT" {
		return fmt.Errorf("postgres: commit: %w: the server rolled the transaction back (%s)", ErrUnavailable, tag)
	}
	return nil
}

// pgBucket is a bucket of a pgTx. Its sequence is read as the transaction
// begins and written back with its keys: writers are serialized, so no
// other transaction moves it meanwhile. What the transaction has read or
// written is kept, so a key is read from the server once, and writes are
// sent together: at commit, or before a cursor next reads the server.
type pgBucket struct {
	t        *pgTx
	name     string
	seq      uint64
	seqDirty bool
	known    map[string]pgValue // keys read or written in this transaction
	pending  map[string]bool    // keys written and not sent yet
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
	if ok {
		value = bytes.Clone(value)
		if value == nil {
			value = []byte{}
		}
	}
	// Kept past pgMaxKnown too: a pending write is read back from here.
	b.remember(string(key), value, ok)
	b.pending[string(key)] = true
	t.dirty = true
	return nil
}

func (b *pgBucket) put(key, value []byte) error { return b.write("put", key, value, true) }
func (b *pgBucket) delete(key []byte) error     { return b.write("delete", key, nil, false) }

func (b *pgBucket) setSequence(n uint64) error {
	if b.t.err != nil {
		return b.t.err
	}
	if !b.t.writable {
		return errors.New("set sequence: the transaction is read-only")
	}
	b.seq, b.seqDirty, b.t.dirty = n, true, true
	return nil
}

func (b *pgBucket) nextSequence() (uint64, error) {
	if err := b.setSequence(b.seq + 1); err != nil {
		return 0, err
	}
	return b.seq, nil
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
