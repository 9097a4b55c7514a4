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
	"maps"

	"github.com/jackc/pgx/v5"
)

// pgSchema makes the engine's tables and functions. It runs under the
// writer lock, so instances starting together make them once.
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
	// What each write transaction changed, by its tick, for the other
	// instances' caches (kv_pg_changes.go).
	`CREATE TABLE IF NOT EXISTS sb_changes (
		tick       bigint  PRIMARY KEY,
		buckets    text[]  NOT NULL,
		keys       bytea[] NOT NULL,
		vals       bytea[] NOT NULL,
		seq_names  text[]  NOT NULL,
		seq_values bigint[] NOT NULL,
		whole      bool    NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS sb_kv (
		bucket text  NOT NULL REFERENCES sb_buckets (name) ON DELETE CASCADE,
		key    bytea NOT NULL,
		value  bytea NOT NULL,
		PRIMARY KEY (bucket, key)
	)`,
	pgCompression,
	pgApplyFunc,
	pgCommitFunc,
}

// pgCompression has the server compress the values (and the change log's
// arrays of them) with lz4 rather than its default pglz, which took a
// few percent of the server's time in the team drain, for a few percent
// more claims a second there. A server built without lz4 (or older than
// 14) keeps its default: it is only ever a matter of speed.
const pgCompression = `DO $$
	BEGIN
		IF (SELECT attcompression FROM pg_attribute
			WHERE attrelid = 'sb_changes'::regclass AND attname = 'vals') <> 'l' THEN
			ALTER TABLE sb_changes ALTER COLUMN keys SET COMPRESSION lz4, ALTER COLUMN vals SET COMPRESSION lz4;
			ALTER TABLE sb_kv ALTER COLUMN value SET COMPRESSION lz4;
		END IF;
	EXCEPTION WHEN OTHERS THEN
		NULL;
	END $$`

// pgWriterLock is the key of the transaction-level advisory lock a write
// under the lock takes first (DB.Update; DB.Write's after its optimistic
// tries): those writers are serialized across instances as bbolt
// serializes them in one file. The number is "sbwriter" in ASCII.
const pgWriterLock int64 = 0x7362777269746572

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
	// cached says the transaction runs from the instance cache, with no
	// connection (pgEngine.readCached): it may not ask the server.
	cached bool
	// optimistic says the transaction is a write run on the instance's
	// snapshot, outside any server transaction (kv_pg_optimistic.go):
	// what it reads from the server must be as of the snapshot's tick.
	optimistic bool
	// seqs is every bucket and its sequence as the transaction began,
	// shared with the instance cache and so never changed in place
	// (ownSeqs copies it first); buckets holds the buckets the
	// transaction has used, made from it as they are asked for.
	seqs      map[string]uint64
	seqsOwned bool
	buckets   map[string]*pgBucket
	// tick is the clock the transaction sees the database at (a write's
	// own tick: the state before it is tick-1); dropped and created say
	// it dropped or made a bucket.
	tick             uint64
	dropped, created bool
	notes            []string // signal keys to NOTIFY at commit (Tx.Notify)
	err              error
}

// fail records err as the transaction's failure, if it is the first.
func (t *pgTx) fail(what string, err error) {
	if t.err == nil {
		t.err = pgFailure(what, err)
	}
}

// server reports whether the transaction may ask the server. One run
// from the instance cache may not: it ends, with errCacheShort, to run
// again in a transaction.
func (t *pgTx) server() bool {
	if t.cached {
		if t.err == nil {
			t.err = errCacheShort
		}
		return false
	}
	return true
}

// The statements that open a transaction. They are sent in the batch of
// its first reads rather than on their own (pgx's BeginTx), which saves a
// round trip per transaction.
const (
	pgBeginRead  = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	pgBeginWrite = "BEGIN ISOLATION LEVEL READ COMMITTED"
)

// The reads of the clock and the buckets that begin a transaction. The
// buckets' rows come back only when the clock is not where the instance
// cache knows them ($1, -1 for nowhere): a few dozen rows each
// transaction otherwise, for nothing.
const (
	pgReadClock = `SELECT c.tick, b.name, b.seq FROM sb_clock c
		LEFT JOIN sb_buckets b ON c.tick <> $1`
	pgMoveClock   = "UPDATE sb_clock SET tick = tick + 1 RETURNING tick"
	pgReadBuckets = "SELECT name, seq FROM sb_buckets WHERE (SELECT tick - 1 FROM sb_clock) <> $1"
)

// begin opens the transaction, takes the writer lock (for a write
// transaction), runs setup after it when there is one (the tables, as the
// store opens), and learns the clock and every bucket's sequence, in one
// round trip: there are a few dozen buckets, and a call touches several.
func (t *pgTx) begin(setup []string) error {
	// The buckets as the cache knows them, taken before the server is
	// asked: the cache may move on while the answer is on its way.
	at, seqs := t.e.cache.buckets()
	known := int64(-1)
	if seqs != nil {
		known = int64(at)
	}
	var b pgx.Batch
	if !t.writable {
		// A read's first statement fixes the snapshot the rest reads.
		b.Queue(pgBeginRead)
		b.Queue(pgReadClock, known)
		b.Queue(pgReadChanges, known, pgCatchUp)
		res := t.conn.SendBatch(t.ctx, &b)
		defer res.Close()
		if _, err := res.Exec(); err != nil {
			return pgFailure("begin", err)
		}
		rows, err := res.Query()
		if err != nil {
			return pgFailure("read the clock", err)
		}
		if err := t.readBuckets(rows, true); err != nil {
			return err
		}
		current, err := t.catchUp(res, at, t.tick, seqs)
		if err != nil {
			return err
		}
		if !current {
			t.e.cache.restart(t.tick, t.seqs)
		}
		return t.closeBatch(res, "read the clock")
	}
	if len(setup) > 0 {
		// As the store opens: the lock and the tables on their own, since
		// a batch prepares every statement before it runs the first (and
		// the read of sb_buckets cannot be prepared before it exists).
		if _, err := t.conn.Exec(t.ctx, pgBeginWrite); err != nil {
			return pgFailure("begin", err)
		}
		if _, err := t.conn.Exec(t.ctx, "SELECT pg_advisory_xact_lock($1)", pgWriterLock); err != nil {
			return pgFailure("take the writer lock", err)
		}
		for _, q := range setup {
			if _, err := t.conn.Exec(t.ctx, q); err != nil {
				return pgFailure("make the tables", err)
			}
		}
	} else {
		b.Queue(pgBeginWrite)
		b.Queue("SELECT pg_advisory_xact_lock($1)", pgWriterLock)
	}
	b.Queue(pgMoveClock)
	b.Queue(pgReadBuckets, known)
	b.Queue(pgReadChanges, known, pgCatchUp)
	res := t.conn.SendBatch(t.ctx, &b)
	defer res.Close()
	if len(setup) == 0 {
		if _, err := res.Exec(); err != nil {
			return pgFailure("begin", err)
		}
		if _, err := res.Exec(); err != nil {
			return pgFailure("take the writer lock", err)
		}
	}
	var tick int64
	if err := res.QueryRow().Scan(&tick); err != nil {
		return pgFailure("move the clock", err)
	}
	t.tick = uint64(tick)
	rows, err := res.Query()
	if err != nil {
		return pgFailure("read the buckets", err)
	}
	if err := t.readBuckets(rows, false); err != nil {
		return err
	}
	// A cache that cannot catch up starts again when this commits.
	if _, err := t.catchUp(res, at, t.tick-1, seqs); err != nil {
		return err
	}
	return t.closeBatch(res, "read the buckets")
}

// catchUp reads the change log's entries since at, the tick the cache was
// as of (with seqs, its buckets, nil if it knew none) from res, and moves
// the cache on by them to tick to, the state the transaction sees, and
// reports whether the cache is as of to. When the cache was as of to
// already, the transaction takes the buckets from it, the same as the
// server's: a map it may share.
func (t *pgTx) catchUp(res pgx.BatchResults, at, to uint64, seqs map[string]uint64) (bool, error) {
	rows, err := res.Query()
	if err != nil {
		return false, pgFailure("read the change log", err)
	}
	changes, err := readChanges(rows)
	if err != nil || seqs == nil {
		return false, err
	}
	if to == at {
		t.seqs = seqs
		return true, nil
	}
	// The transaction keeps the buckets the server gave it.
	return t.e.cache.catchUp(at, to, changes) != nil, nil
}

// closeBatch closes res, whose results have all been read.
func (t *pgTx) closeBatch(res pgx.BatchResults, what string) error {
	if err := res.Close(); err != nil {
		return fmt.Errorf("postgres: %s: %w: %w", what, ErrUnavailable, err)
	}
	return nil
}

// readBuckets reads the buckets' names and sequences from rows into
// t.seqs, and with withTick the clock first in each row (with no bucket,
// when the cache knows them).
func (t *pgTx) readBuckets(rows pgx.Rows, withTick bool) error {
	defer rows.Close()
	t.seqs = map[string]uint64{}
	for rows.Next() {
		var name *string
		var tick int64
		var seq *int64
		var err error
		if withTick {
			err = rows.Scan(&tick, &name, &seq)
			t.tick = uint64(tick)
		} else {
			err = rows.Scan(&name, &seq)
		}
		if err != nil {
			return pgFailure("read the buckets", err)
		}
		if name != nil {
			t.seqs[*name] = uint64(*seq)
		}
	}
	if err := rows.Err(); err != nil {
		return pgFailure("read the buckets", err)
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
		if t.optimistic || t.cached {
			// Another instance may have made it since the snapshot,
			// which the cache cannot catch up past: the write runs
			// again under the lock, the read in a transaction, either
			// of which reads the buckets there are. Until it ends, the
			// bucket answers nothing.
			if t.err == nil {
				t.err = errNeedLock
				if t.cached {
					t.err = errCacheShort
				}
			}
			return &pgBucket{t: t, name: string(name)}
		}
		return nil
	}
	b := &pgBucket{t: t, name: string(name), seq: seq}
	t.buckets[b.name] = b
	return b
}

// ownSeqs makes t.seqs the transaction's own, to change.
func (t *pgTx) ownSeqs() {
	if !t.seqsOwned {
		t.seqs, t.seqsOwned = maps.Clone(t.seqs), true
	}
}

// seqsAfter returns every bucket and its sequence as the transaction
// leaves them.
func (t *pgTx) seqsAfter() map[string]uint64 {
	seqs, owned := t.seqs, t.seqsOwned
	for _, b := range t.buckets {
		if seqs[b.name] != b.seq {
			if !owned {
				seqs, owned = maps.Clone(seqs), true
			}
			seqs[b.name] = b.seq
		}
	}
	return seqs
}

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
	if t.optimistic {
		t.err = errNeedLock // buckets are made under the lock
		return nil, t.err
	}
	if _, err := t.conn.Exec(t.ctx, "INSERT INTO sb_buckets (name) VALUES ($1)", string(name)); err != nil {
		t.fail("create bucket "+string(name), err)
		return nil, t.err
	}
	b := &pgBucket{t: t, name: string(name)}
	t.created = true
	t.ownSeqs()
	t.seqs[b.name] = 0
	t.buckets[b.name] = b
	return b, nil
}

func (t *pgTx) deleteBucket(name []byte) error {
	if t.err != nil {
		return t.err
	}
	if !t.server() {
		return t.err
	}
	if t.optimistic {
		t.err = errNeedLock
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
	t.ownSeqs()
	delete(t.seqs, string(name))
	delete(t.buckets, string(name))
	t.dropped = true
	return nil
}

// pgBucket is a bucket of a pgTx. Its sequence is read with it and
// written back at commit: writers are serialized (or, optimistic, commit
// only on the snapshot they read), so no other transaction moves it
// meanwhile. For the same reason what the transaction has read or written
// is kept: a key is read from the server once, and writes are sent
// together at commit, cursors laying them over the rows they read.
type pgBucket struct {
	t        *pgTx
	name     string
	seq      uint64
	seqDirty bool
	known    map[string]pgValue // keys read or written in this transaction
	pending  map[string]bool    // keys written, sent at commit
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
	if e, ok := t.e.cache.get(t.seen(), b.name, string(key)); ok {
		if len(b.known) < pgMaxKnown {
			b.remember(string(key), e.v, e.ok)
		}
		return e.v
	}
	if !t.server() {
		return nil
	}
	v, found := t.readKey(b.name, key)
	if t.err != nil {
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

// seen is the tick of the state the transaction sees: for a write, the
// tick before its own.
func (t *pgTx) seen() uint64 {
	if t.writable {
		return t.tick - 1
	}
	return t.tick
}

// readKey reads key of bucket from the server. An optimistic write reads
// it with the clock, to learn that its snapshot is gone.
func (t *pgTx) readKey(bucket string, key []byte) (v []byte, found bool) {
	var err error
	if t.optimistic {
		var tick int64
		err = t.conn.QueryRow(t.ctx, `SELECT c.tick, k.key IS NOT NULL, k.value FROM sb_clock c
			LEFT JOIN sb_kv k ON k.bucket = $1 AND k.key = $2`, bucket, bytes.Clone(key)).Scan(&tick, &found, &v)
		if err == nil && !t.at(uint64(tick)) {
			return nil, false
		}
	} else {
		err = t.conn.QueryRow(t.ctx, "SELECT value FROM sb_kv WHERE bucket = $1 AND key = $2", bucket, bytes.Clone(key)).Scan(&v)
		found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if err != nil {
		t.fail("read "+bucket, err)
		return nil, false
	}
	return v, found
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
