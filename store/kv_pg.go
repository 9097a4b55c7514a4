package store

// The PostgreSQL engine: the store's buckets as rows of two tables (see
// docs/team-mode.md). Keys are bytea, which PostgreSQL orders byte by byte
// as bbolt orders its keys, so a cursor is an ordered range read in
// batches (kv_pg_cursor.go).
//
// A transaction is a server transaction on one connection: a write takes
// the writer lock before it reads or writes anything, so writes happen one
// at a time across every instance, as in one bbolt file; a read runs on a
// REPEATABLE READ snapshot and takes no lock. Nothing is kept between
// transactions but the names of the buckets.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// The engine before this one kept an instance cache checked against a
	// clock (sb_clock) and a change log (sb_changes): an instance of it
	// still running would trust its cache past writes that no longer move
	// the clock. Without them it fails loudly instead.
	`DROP FUNCTION IF EXISTS sb_commit, sb_apply`,
	`DROP TABLE IF EXISTS sb_changes, sb_clock`,
	// lz4 costs the server less than its default pglz; a server without
	// it (or older than 14) keeps its default: only speed depends on it.
	`DO $$ BEGIN
		ALTER TABLE sb_kv ALTER COLUMN value SET COMPRESSION lz4;
	EXCEPTION WHEN OTHERS THEN NULL;
	END $$`,
}

// The statements that open a transaction, which go ahead of its first read
// in the same round trip (pgTx.send). The writer lock is a transaction-level
// advisory lock: writers are serialized across instances as bbolt
// serializes them in one file. Its key is "sbwriter" in ASCII.
const (
	pgBeginRead   = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	pgBeginWrite  = "BEGIN ISOLATION LEVEL READ COMMITTED"
	pgTakeLock    = "SELECT pg_advisory_xact_lock(x'7362777269746572'::bigint)"
	pgReadBuckets = "SELECT name, seq FROM sb_buckets"
	// A key is read with those read ahead with it, or with its whole bucket
	// (pgReadAhead) up to pgMaxKnown+1 rows: the limit keeps the index in a
	// generic plan, and a bucket too big to keep is not taken as whole.
	pgReadKey   = "SELECT bucket, key, value FROM sb_kv WHERE bucket = ANY($1) AND key = $2"
	pgReadWhole = "SELECT bucket, key, value FROM sb_kv WHERE bucket = $1 ORDER BY key LIMIT 4097"
)

// pgReadAhead says what a read of a key in bucket fetches besides, in the
// same round trip, because the store's calls go on to read it: the whole
// of packet_counts (a counter per state, of which a call moves two), and
// with a session the same key's trace head. A round trip is most of what
// a read costs; only speed depends on this.
func pgReadAhead(bucket string) (whole bool, with []string) {
	switch bucket {
	case string(bucketPacketCounts):
		return true, nil
	case string(bucketSessions):
		return false, []string{string(bucketTraceHeads)}
	}
	return false, nil
}

// pgApply writes what a transaction has buffered, in one statement however
// many keys: its puts and deletes, the sequences it moved, and its
// signals, which PostgreSQL delivers when the transaction commits and
// never if it rolls back.
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
// of any statement is kept here: later statements are skipped, and the
// transaction ends with it, rolled back, whatever the store made of the
// missing answers.
type pgTx struct {
	// ctx bounds every statement: the caller's with the transaction's
	// deadline; caller's own tells a caller that left from a server that
	// failed.
	ctx, caller context.Context
	e           *pgEngine
	conn        *pgx.Conn // a pool's, inside the transaction
	writable    bool
	// begun says BEGIN has gone (apart only in setup); open, that the first
	// round trip is done: seqs holds every bucket's sequence from then.
	begun, open bool
	seqs        map[string]uint64
	buckets     map[string]*pgBucket // those the transaction has used
	// dirty says some bucket holds writes not yet sent; notes are the
	// signal keys to send (Tx.Notify).
	dirty bool
	notes []string
	err   error
}

func (t *pgTx) fail(what string, err error) {
	if t.err == nil {
		t.err = pgFailure(t.caller, what, err)
	}
}

// send sends b's statements (which carry their callbacks; b may be nil)
// in one round trip under ctx, after the statements that open the
// transaction if they have not gone: BEGIN, the writer lock for a write,
// and the read of every bucket's sequence (a few dozen rows). So a
// transaction's first read costs no round trip of its own, and a write
// waits for the lock there, where its caller may still leave.
func (t *pgTx) send(ctx context.Context, what string, b *pgx.Batch) {
	if t.err != nil {
		return
	}
	var all pgx.Batch
	if !t.open {
		if !t.begun && t.writable {
			all.Queue(pgBeginWrite)
			all.Queue(pgTakeLock)
		} else if !t.begun {
			all.Queue(pgBeginRead)
		}
		all.Queue(pgReadBuckets).Query(t.readBuckets)
	}
	if b != nil {
		all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...)
	}
	if err := t.conn.SendBatch(ctx, &all).Close(); err != nil {
		t.fail(what, err)
	}
}

func (t *pgTx) opened() {
	if !t.open {
		t.send(t.ctx, "begin", nil)
	}
}

// setup opens a write transaction with setup's SQL run after the lock
// (the tables, as the store opens), all in one simple query: a batch
// prepares its statements before it runs the first, and the read of
// sb_buckets cannot be prepared before the table is there.
func (t *pgTx) setup(setup []string) error {
	sql := strings.Join(append([]string{pgBeginWrite, pgTakeLock}, setup...), ";\n")
	if _, err := t.conn.Exec(t.ctx, sql); err != nil {
		t.fail("make the tables", err)
	}
	t.begun = true
	t.opened()
	return t.err
}

// readBuckets reads every bucket's sequence as the transaction opens. The
// buckets handed out before (see bucket) must all be there.
func (t *pgTx) readBuckets(rows pgx.Rows) error {
	t.seqs = map[string]uint64{}
	var name string
	var seq int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &seq}, func() error {
		t.seqs[name] = uint64(seq)
		return nil
	}); err != nil {
		return err
	}
	seqs := t.seqs // never changed: alterBucket copies it
	t.e.seqs.Store(&seqs)
	for _, b := range t.buckets {
		if _, ok := t.seqs[b.name]; !ok {
			return fmt.Errorf("bucket %s was dropped as the transaction began", b.name)
		}
		b.seq = t.seqs[b.name]
	}
	t.open = true
	return nil
}

// bucket returns the bucket named name, nil if there is none. Before the
// first round trip a bucket the engine's last transaction found is handed
// out at once, its sequence to come with that round trip (buckets are made
// by migrations and one landing, dropped by migrations alone); for any
// other name the transaction opens now. After a failure it still returns a
// bucket, whose methods answer nothing: a nil one would have the store
// dereference nil rather than end with the transaction's error.
func (t *pgTx) bucket(name []byte) *pgBucket {
	if b := t.buckets[string(name)]; b != nil {
		return b
	}
	if !t.open {
		var known bool
		if last := t.e.seqs.Load(); last != nil {
			_, known = (*last)[string(name)]
		}
		if !known {
			t.opened()
		}
	}
	if _, ok := t.seqs[string(name)]; !ok && t.open {
		return nil
	}
	b := &pgBucket{t: t, name: string(name), seq: t.seqs[string(name)], known: map[string][]byte{}, pending: map[string]bool{}}
	t.buckets[b.name] = b
	return b
}

// alterBucket makes (create) or drops the bucket named name, at once, not
// at commit: a write buffered for a bucket must find its row there. Only
// migrations (and a landing's journal, once) do either.
func (t *pgTx) alterBucket(name []byte, create, ifMissing bool) (*pgBucket, error) {
	if t.opened(); t.err != nil {
		return nil, t.err
	}
	if !t.writable {
		return nil, fmt.Errorf("alter bucket %s: the transaction is read-only", name)
	}
	b, sql := t.bucket(name), "INSERT INTO sb_buckets (name) VALUES ($1)"
	switch {
	case create && b != nil && ifMissing:
		return b, nil
	case create && b != nil:
		return nil, fmt.Errorf("create bucket %s: it exists already", name)
	case !create && b == nil:
		return nil, fmt.Errorf("delete bucket %s: there is none", name)
	case !create:
		// Its rows go with it (ON DELETE CASCADE), and the writes
		// buffered for it with its pgBucket.
		sql = "DELETE FROM sb_buckets WHERE name = $1"
	}
	if _, err := t.conn.Exec(t.ctx, sql, string(name)); err != nil {
		t.fail("alter bucket "+string(name), err)
		return nil, t.err
	}
	t.seqs = maps.Clone(t.seqs) // the engine keeps the one readBuckets made
	if delete(t.buckets, string(name)); create {
		t.seqs[string(name)] = 0
		return t.bucket(name), nil
	}
	delete(t.seqs, string(name))
	return nil, nil
}

// queueWrites adds to b the statement that sends what the transaction has
// buffered, if anything, and empties the buffer.
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
			if v := bk.known[k]; v != nil {
				putB, putK, putV = append(putB, bk.name), append(putK, []byte(k)), append(putV, v)
			} else {
				delB, delK = append(delB, bk.name), append(delK, []byte(k))
			}
		}
		if bk.seqDirty {
			seqN, seqV = append(seqN, bk.name), append(seqV, int64(bk.seq))
		}
		bk.pending, bk.seqDirty = map[string]bool{}, false
	}
	b.Queue(pgApply, putB, putK, putV, delB, delK, seqN, seqV, t.notes)
	t.dirty, t.notes = false, nil
}

// commit sends the buffered writes and COMMIT in one round trip, which a
// caller that leaves does not stop: it would make the outcome unknown
// (committed, yet answered as cancelled). An error may leave it unknown
// anyway (the connection may break after the server committed): the caller
// was told nothing was acknowledged, and a retry meets what it did
// (lease_lost, invalid_state), never a double.
func (t *pgTx) commit() error {
	t.opened() // one that only wrote waits for the lock here, where its caller may still leave
	var b pgx.Batch
	t.queueWrites(&b)
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		// A failed transaction answers COMMIT with ROLLBACK, and no error:
		// none should get here, but nothing uncommitted is acknowledged.
		if tag.String() != "COMMIT" {
			return fmt.Errorf("%w: the server rolled the transaction back (%s)", ErrUnavailable, tag)
		}
		return nil
	})
	deadline, _ := t.ctx.Deadline()
	ctx, cancel := context.WithDeadline(context.WithoutCancel(t.ctx), deadline)
	defer cancel()
	t.send(ctx, "commit", &b)
	return t.err
}

// pgBucket is a bucket of a pgTx. Its sequence comes as the transaction
// opens and goes back with its keys: writers are serialized, so no other
// transaction moves it meanwhile. What the transaction has read or written
// is kept, so a key is read from the server once, and writes are sent
// together: at commit, or before a cursor next reads the server.
type pgBucket struct {
	t        *pgTx
	name     string
	seq      uint64
	seqDirty bool
	// known holds the keys read or written in this transaction, nil for
	// one missing or deleted (a stored value is never nil, if empty).
	known   map[string][]byte
	pending map[string]bool // keys written and not sent yet
	whole   bool            // known holds every key: the bucket was read whole
}

// pgMaxKnown bounds the values a bucket keeps read: a transaction of many
// lookups must not grow without end (a cursor keeps nothing).
const pgMaxKnown = 4096

// The methods take keys and values without keeping the caller's slices:
// they copy what they keep, and pgx encodes its arguments before a query
// returns, so that keys do not escape on the bbolt path (see kv.go).

func (b *pgBucket) get(key []byte) []byte {
	t := b.t
	if v, ok := b.known[string(key)]; ok || b.whole || t.err != nil {
		return v
	}
	whole, with := pgReadAhead(b.name)
	asked, names := []*pgBucket{b}, []string{b.name}
	for _, name := range with {
		if w := t.bucket([]byte(name)); w != nil && !w.knows(key) {
			asked, names = append(asked, w), append(names, name)
		}
	}
	sql, args := pgReadKey, []any{names, bytes.Clone(key)}
	if whole {
		sql, args = pgReadWhole, []any{b.name}
	}
	var q pgx.Batch
	q.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		var bucket string
		var k, v []byte
		_, err := pgx.ForEachRow(rows, []any{&bucket, &k, &v}, func() error {
			if v == nil {
				v = []byte{} // stored, if empty: only a missing key reads nil
			}
			whole = t.buckets[bucket].learn(k, v) && whole
			k, v = nil, nil // kept: the next row's must not reuse them
			return nil
		})
		return err
	})
	if t.send(t.ctx, "read "+b.name, &q); t.err != nil {
		return nil
	}
	for _, a := range asked {
		a.learn(key, nil) // missing, unless a row came
	}
	b.whole = whole
	return b.known[string(key)]
}

func (b *pgBucket) knows(key []byte) bool {
	_, ok := b.known[string(key)]
	return ok
}

// learn keeps the server's value of key (nil: there is none), unless the
// transaction has one of its own, or keeps too many; it reports whether
// the bucket knows key now.
func (b *pgBucket) learn(key, v []byte) bool {
	if b.knows(key) || len(b.known) >= pgMaxKnown {
		return b.knows(key)
	}
	b.known[string(key)] = v
	return true
}

// write buffers the new value of key (nil: deleted).
func (b *pgBucket) write(op string, key, value []byte) error {
	t := b.t
	switch {
	case t.err != nil:
		return t.err
	case !t.writable:
		return fmt.Errorf("%s: the transaction is read-only", op)
	case len(key) == 0:
		return fmt.Errorf("%s: the key is empty", op)
	}
	// Kept past pgMaxKnown too: a pending write is read back from here.
	b.known[string(key)] = value
	b.pending[string(key)] = true
	t.dirty = true
	return nil
}

func (b *pgBucket) put(key, value []byte) error {
	return b.write("put", key, append([]byte{}, value...))
}
func (b *pgBucket) delete(key []byte) error { return b.write("delete", key, nil) }

// sequence is the bucket's sequence, which comes as the transaction opens.
func (b *pgBucket) sequence() uint64 {
	b.t.opened()
	return b.seq
}

func (b *pgBucket) setSequence(n uint64) error {
	if b.t.opened(); b.t.err != nil {
		return b.t.err
	}
	if !b.t.writable {
		return errors.New("set sequence: the transaction is read-only")
	}
	b.seq, b.seqDirty, b.t.dirty = n, true, true
	return nil
}

func (b *pgBucket) nextSequence() (uint64, error) {
	if err := b.setSequence(b.sequence() + 1); err != nil {
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
