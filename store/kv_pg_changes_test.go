package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// catchUp moves a cache on by the change log only from where it is, only
// by every tick in between, and never past a tick that made or dropped a
// bucket.
func TestPgCacheCatchUp(t *testing.T) {
	live := func(v string) []byte { return append([]byte{pgLive}, v...) }
	gone := []byte{pgGone}
	entry := func(tick uint64, key string, val []byte, seq uint64) pgChange {
		return pgChange{tick: tick, buckets: []string{"b"}, keys: [][]byte{[]byte(key)}, vals: [][]byte{val},
			seqs: map[string]uint64{"b": seq}}
	}
	tests := []struct {
		name     string
		from, to uint64
		changes  []pgChange
		ok       bool
		want     map[string]pgValue // the cache's keys after, if ok
		wantSeq  uint64
	}{
		{"one tick", 5, 6, []pgChange{entry(6, "k1", live("new"), 8)}, true,
			map[string]pgValue{"k1": {[]byte("new"), true}, "k2": {[]byte("two"), true}}, 8},
		{"two ticks, a delete", 5, 7, []pgChange{entry(6, "k1", live("new"), 8), entry(7, "k2", gone, 9)}, true,
			map[string]pgValue{"k1": {[]byte("new"), true}, "k2": {nil, false}}, 9},
		{"an empty value is a value", 5, 6, []pgChange{entry(6, "k1", live(""), 7)}, true,
			map[string]pgValue{"k1": {[]byte{}, true}, "k2": {[]byte("two"), true}}, 7},
		{"entries past to are left", 5, 6, []pgChange{entry(6, "k1", live("new"), 8), entry(7, "k2", gone, 9)}, true,
			map[string]pgValue{"k1": {[]byte("new"), true}, "k2": {[]byte("two"), true}}, 8},
		{"a tick missing", 5, 7, []pgChange{entry(7, "k1", live("new"), 8)}, false, nil, 0},
		{"too few entries", 5, 7, []pgChange{entry(6, "k1", live("new"), 8)}, false, nil, 0},
		{"a bucket made", 5, 6, []pgChange{{tick: 6, whole: true}}, false, nil, 0},
		{"not from where the cache is", 4, 6, []pgChange{entry(5, "k1", live("x"), 8), entry(6, "k1", live("y"), 8)}, false, nil, 0},
		{"a bucket the cache does not know", 5, 7, []pgChange{entry(6, "k1", live("x"), 8),
			{tick: 7, seqs: map[string]uint64{"new": 1}}}, false, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seqs := map[string]uint64{"b": 7}
			c := &pgCache{at: 5, seqs: seqs, vals: map[pgKey]pgValue{
				{"b", "k1"}: {[]byte("one"), true}, {"b", "k2"}: {[]byte("two"), true},
			}}
			got := c.catchUp(tc.from, tc.to, tc.changes)
			if (got != nil) != tc.ok {
				t.Fatalf("caught up: %v, want %v", got != nil, tc.ok)
			}
			if seqs["b"] != 7 {
				t.Errorf("the buckets the cache shared were changed in place")
			}
			if !tc.ok {
				if v, ok := c.get(5, "b", "k1"); c.at != 5 || !ok || string(v.v) != "one" {
					t.Errorf("the cache moved to %d, or holds k1=%q (held: %v) of a later tick", c.at, v.v, ok)
				}
				return
			}
			if c.at != tc.to || got["b"] != tc.wantSeq {
				t.Errorf("the cache is at %d with sequence %d, want %d and %d", c.at, got["b"], tc.to, tc.wantSeq)
			}
			for k, want := range tc.want {
				v, ok := c.get(tc.to, "b", k)
				if !ok || v.ok != want.ok || string(v.v) != string(want.v) || (want.ok && v.v == nil) {
					t.Errorf("%s is %+v (held %v), want %+v", k, v, ok, want)
				}
			}
		})
	}
}

// Two instances on one database: what one writes, the other's cache
// takes from the change log, so that its next read is answered from
// memory, right; a write that left no entry (an instance of an earlier
// version) makes it read the server again.
func TestPgChangeLogAcrossInstances(t *testing.T) {
	a, b := twoInstances(t)
	bucket := []byte("changes_test")
	mustUpdate(t, a, func(tx *Tx) error {
		bk, err := tx.tx.CreateBucket(bucket)
		if err != nil {
			return err
		}
		if err := bk.Put([]byte("k1"), []byte("one")); err != nil {
			return err
		}
		return bk.Put([]byte("k2"), []byte("two"))
	})
	read := func(db *DB) (k1, k2 string, k2ok bool, seq uint64) {
		return readKeys(t, db, bucket, func(fn func(*Tx) error) error { return db.Read(fn) })
	}
	read(b) // b's cache holds both keys
	if _, _, _, _ = read(b); b.pg.cache.at == 0 {
		t.Fatal("b's cache holds nothing after two reads")
	}

	mustUpdate(t, a, func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		if _, err := bk.NextSequence(); err != nil {
			return err
		}
		if err := bk.Put([]byte("k1"), []byte("uno")); err != nil {
			return err
		}
		return bk.Delete([]byte("k2"))
	})
	// From the cache alone (readCached fails with errCacheShort when it
	// cannot), as a's write left them.
	k1, _, k2ok, seq := readKeys(t, b, bucket, func(fn func(*Tx) error) error { return b.pg.readCached(wrapTx(b, fn)) })
	if k1 != "uno" || k2ok || seq != 1 {
		t.Errorf("b's cache says k1=%q, k2 there: %v, sequence %d; want uno, gone, 1", k1, k2ok, seq)
	}
	// A write on b sees a's too.
	mustUpdate(t, b, func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		if got := string(bk.Get([]byte("k1"))); got != "uno" {
			return errors.New("b's write reads k1 as " + got)
		}
		return bk.Put([]byte("k1"), []byte("eins"))
	})
	if k1, _, _, _ := read(a); k1 != "eins" {
		t.Errorf("a reads k1 as %q after b's write", k1)
	}

	// A tick with no entry: b cannot catch up, and reads the server.
	ctx := context.Background()
	if _, err := a.pg.pool.Exec(ctx, `UPDATE sb_kv SET value = 'ichi' WHERE bucket = 'changes_test' AND key = 'k1';
		UPDATE sb_clock SET tick = tick + 1`); err != nil {
		t.Fatal(err)
	}
	err := b.pg.readCached(wrapTx(b, func(tx *Tx) error { return nil }))
	if !errors.Is(err, errCacheShort) {
		t.Errorf("b's cache answered past a tick with no entry: %v", err)
	}
	if k1, _, _, _ := read(b); k1 != "ichi" {
		t.Errorf("b reads k1 as %q past a tick with no entry, want the server's", k1)
	}
}

// twoInstances opens a test database twice, as two instances do; on
// bbolt, which has no instances to share a file, it skips the test.
func twoInstances(t *testing.T) (a, b *DB) {
	t.Helper()
	a = openTestDB(t, Options{})
	if a.pg == nil {
		t.Skip("the change log is the PostgreSQL engine's")
	}
	u, _ := pgURLs.Load(a)
	b, err := OpenPostgres(u.(string), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// readKeys reads k1, k2 and the sequence of bucket with run.
func readKeys(t *testing.T, db *DB, bucket []byte, run func(func(*Tx) error) error) (k1, k2 string, k2ok bool, seq uint64) {
	t.Helper()
	err := run(func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		k1 = string(bk.Get([]byte("k1")))
		v2 := bk.Get([]byte("k2"))
		k2, k2ok, seq = string(v2), v2 != nil, bk.Sequence()
		return nil
	})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return
}

// wrapTx makes fn a function of the engine's transactions, as DB.Read
// does.
func wrapTx(db *DB, fn func(*Tx) error) func(kvTx) error {
	return func(t kvTx) error { return fn(&Tx{tx: t, db: db, now: db.now().UTC()}) }
}

// Every commit leaves its entry in the change log, a write under the
// lock and an optimistic one alike, an instance alone too: a read of the
// same instance that meets its own commit before the commit has told the
// cache catches up by it instead of starting the cache again.
func TestPgEveryCommitLogs(t *testing.T) {
	a, _ := twoInstances(t)
	bucket := mustCreateBucket(t, a, "changes_test")
	ctx := context.Background()
	var from int64
	if err := a.pg.pool.QueryRow(ctx, "SELECT tick FROM sb_clock").Scan(&from); err != nil {
		t.Fatal(err)
	}
	const writes = pgCatchUp + 10
	for i := range writes {
		put := func(tx *Tx) error { return tx.tx.Bucket(bucket).Put([]byte("k1"), []byte(fmt.Sprint(i))) }
		if i%2 == 0 {
			mustUpdate(t, a, put)
		} else if err := a.Write(put); err != nil {
			t.Fatal(err)
		}
	}
	var entries, last, clock int64
	err := a.pg.pool.QueryRow(ctx, `SELECT count(*), max(ch.tick), (SELECT tick FROM sb_clock)
		FROM sb_changes ch WHERE ch.tick > $1`, from).Scan(&entries, &last, &clock)
	if err != nil {
		t.Fatal(err)
	}
	if entries != writes || last != clock {
		t.Errorf("%d writes left %d entries, the last at %d; the clock is at %d", writes, entries, last, clock)
	}
}
