package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mustCreateBucket makes bucket name in db and returns its name.
func mustCreateBucket(t *testing.T, db *DB, name string) []byte {
	t.Helper()
	mustUpdate(t, db, func(tx *Tx) error {
		_, err := tx.tx.CreateBucket([]byte(name))
		return err
	})
	return []byte(name)
}

// Writes of two instances, optimistic on each and some under the lock,
// each reading a counter and writing it one up and appending to a log by
// the bucket's sequence: none is lost, none counted twice, whatever ran
// again after another instance committed first.
func TestPgWritesAcrossInstancesLoseNothing(t *testing.T) {
	a, b := twoInstances(t)
	bucket := mustCreateBucket(t, a, "counter_test")
	var runs atomic.Int64
	add := func(tx *Tx) error {
		runs.Add(1)
		bk := tx.tx.Bucket(bucket)
		n, _ := strconv.Atoi(string(bk.Get([]byte("n"))))
		seq, err := bk.NextSequence()
		if err != nil {
			return err
		}
		if err := bk.Put([]byte(fmt.Sprintf("log%06d", seq)), []byte(strconv.Itoa(n))); err != nil {
			return err
		}
		return bk.Put([]byte("n"), []byte(strconv.Itoa(n+1)))
	}
	const each, locked = 150, 40
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, w := range []struct {
		n   int
		run func(func(*Tx) error) error
	}{{each, a.Write}, {each, b.Write}, {locked, b.Update}} {
		wg.Go(func() {
			for range w.n {
				if err := w.run(add); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const total = 2*each + locked
	mustView(t, a, func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		if n := string(bk.Get([]byte("n"))); n != strconv.Itoa(total) {
			t.Errorf("the counter is %s after %d writes", n, total)
		}
		if seq := bk.Sequence(); seq != total {
			t.Errorf("the sequence is %d after %d writes", seq, total)
		}
		// Each log entry holds the counter its write read: 0, 1, 2, …
		i := 0
		c := bk.Cursor()
		for k, v := c.Seek([]byte("log")); k != nil && bytes.HasPrefix(k, []byte("log")); k, v = c.Next() {
			if string(v) != strconv.Itoa(i) {
				t.Errorf("log entry %s read the counter as %s, want %d", k, v, i)
				break
			}
			i++
		}
		if i != total {
			t.Errorf("%d log entries, want %d", i, total)
		}
		return nil
	})
	t.Logf("%d writes ran %d times", total, runs.Load())
}

// A write that fails on its snapshot runs again if another instance has
// committed since: what it did not find may be there now. (A long poll
// woken by another instance's signal looks again this way.)
func TestPgFailedWriteLooksAgain(t *testing.T) {
	a, b := twoInstances(t)
	bucket := mustCreateBucket(t, a, "again_test")
	errMissing := errors.New("x is not there")
	find := func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		if bk.Get([]byte("x")) == nil {
			return errMissing
		}
		return bk.Put([]byte("seen"), []byte("yes"))
	}
	// b's cache holds x as missing, as the database has it.
	if err := b.Read(func(tx *Tx) error {
		if v := tx.tx.Bucket(bucket).Get([]byte("x")); v != nil {
			return fmt.Errorf("x is %q before a writes it", v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, a, func(tx *Tx) error { return tx.tx.Bucket(bucket).Put([]byte("x"), []byte("1")) })
	if err := b.Write(find); err != nil {
		t.Fatalf("after a wrote x, b's write: %v", err)
	}
}

// Cursors walk what bbolt's walk in the same transaction: the bucket's
// rows with the transaction's own puts and deletes laid over them, both
// ways, from a seek, turning, across the engine's batches; on a bucket
// the cache holds whole (the queue) and on one it does not; in a write
// under the lock and an optimistic one.
func TestPgCursorsWalkAsBbolt(t *testing.T) {
	pg, _ := twoInstances(t)
	bolt, err := Open(filepath.Join(t.TempDir(), "bolt.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	for _, bucket := range []string{string(bucketPacketQueue), "walk_test"} {
		for _, mode := range []string{"update", "write"} {
			t.Run(bucket+"/"+mode, func(t *testing.T) {
				seed := uint64(len(bucket) + len(mode))
				var walks [2][]string
				for i, db := range []*DB{bolt, pg} {
					walks[i] = walkAfterWrites(t, db, []byte(bucket), mode, seed)
				}
				if len(walks[0]) == 0 {
					t.Fatal("the walk saw nothing")
				}
				for i := range max(len(walks[0]), len(walks[1])) {
					var want, got string
					if i < len(walks[0]) {
						want = walks[0][i]
					}
					if i < len(walks[1]) {
						got = walks[1][i]
					}
					if want != got {
						t.Fatalf("step %d of the walk: PostgreSQL %q, bbolt %q", i, got, want)
					}
				}
			})
		}
	}
}

// walkAfterWrites empties bucket (made if missing), fills it with 400 of
// 700 keys, then in one transaction (mode: "update" or "write") puts and
// deletes 150 keys at random and walks the bucket, returning every step.
func walkAfterWrites(t *testing.T, db *DB, bucket []byte, mode string, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	key := func() []byte { return []byte(fmt.Sprintf("k%04d", rng.IntN(700))) }
	mustUpdate(t, db, func(tx *Tx) error {
		if tx.tx.Bucket(bucket).Missing() {
			if _, err := tx.tx.CreateBucket(bucket); err != nil {
				return err
			}
		}
		bk := tx.tx.Bucket(bucket)
		var old [][]byte
		c := bk.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			old = append(old, bytes.Clone(k))
		}
		for _, k := range old {
			if err := bk.Delete(k); err != nil {
				return err
			}
		}
		for range 400 {
			if err := bk.Put(key(), []byte("committed")); err != nil {
				return err
			}
		}
		return nil
	})
	var steps []string
	walk := func(tx *Tx) error {
		steps = steps[:0]
		rng := rand.New(rand.NewPCG(seed, 2))
		key := func() []byte { return []byte(fmt.Sprintf("k%04d", rng.IntN(700))) }
		bk := tx.tx.Bucket(bucket)
		for i := range 150 {
			var err error
			if rng.IntN(3) == 0 {
				err = bk.Delete(key())
			} else {
				err = bk.Put(key(), []byte(fmt.Sprint("pending ", i)))
			}
			if err != nil {
				return err
			}
		}
		note := func(what string, k, v []byte) {
			steps = append(steps, fmt.Sprintf("%s %s=%s", what, k, v))
		}
		c := bk.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			note("next", k, v)
		}
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			note("prev", k, v)
		}
		for range 25 {
			k, v := c.Seek(key())
			note("seek", k, v)
			for range 4 {
				k, v = c.Next()
				note("next", k, v)
			}
			for range 6 {
				k, v = c.Prev()
				note("prev", k, v)
			}
		}
		return nil
	}
	run := db.Update
	if mode == "write" {
		run = db.Write
	}
	if err := run(walk); err != nil {
		t.Fatal(err)
	}
	return steps
}

// The queue, held whole by an instance's cache, follows another
// instance's writes to it: a read on the first answers from memory
// (readCached cannot ask the server) what the second wrote.
func TestPgHeldBucketFollowsOtherInstance(t *testing.T) {
	a, b := twoInstances(t)
	walk := func(tx *Tx) ([]string, error) {
		var keys []string
		c := tx.tx.Bucket(bucketPacketQueue).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			keys = append(keys, string(k)+"="+string(v))
		}
		return keys, nil
	}
	put := func(db *DB, k, v string) {
		t.Helper()
		mustUpdate(t, db, func(tx *Tx) error {
			bk := tx.tx.Bucket(bucketPacketQueue)
			if v == "" {
				return bk.Delete([]byte(k))
			}
			return bk.Put([]byte(k), []byte(v))
		})
	}
	put(a, "q1", "p1")
	put(a, "q3", "p3")
	// b loads the queue whole in a transaction of its own.
	if err := b.View(func(tx *Tx) error { _, err := walk(tx); return err }); err != nil {
		t.Fatal(err)
	}
	put(a, "q2", "p2")
	put(a, "q1", "")
	put(b, "q4", "p4")
	put(a, "q3", "p3'")
	var got []string
	err := b.pg.readCached(wrapTx(b, func(tx *Tx) error {
		var err error
		got, err = walk(tx)
		return err
	}))
	if err != nil {
		t.Fatalf("b's walk of the queue from memory: %v", err)
	}
	if want := []string{"q2=p2", "q3=p3'", "q4=p4"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("b walks the queue as %v, want %v", got, want)
	}
	// A key of the held queue that is not there is known not to be.
	err = b.pg.readCached(wrapTx(b, func(tx *Tx) error {
		if v := tx.tx.Bucket(bucketPacketQueue).Get([]byte("q1")); v != nil {
			return fmt.Errorf("q1 is %q", v)
		}
		return nil
	}))
	if err != nil {
		t.Errorf("b's lookup of a deleted key of the queue from memory: %v", err)
	}
}

// Peek answers from what the instance last knew while the server showed
// it current within pgPeekFresh, with no round trip: another instance's
// write of that moment may not show. A failure there is not the answer:
// fn runs again on the server's state, as it does once the instance's
// knowledge is older than pgPeekFresh.
func TestPgPeek(t *testing.T) {
	a, b := twoInstances(t)
	bucket := []byte("peek_test")
	mustCreateBucket(t, a, string(bucket))
	put := func(v string) {
		t.Helper()
		mustUpdate(t, a, func(tx *Tx) error { return tx.tx.Bucket(bucket).Put([]byte("k"), []byte(v)) })
	}
	peek := func(want string) (string, int) {
		t.Helper()
		var got string
		runs := 0
		err := b.Peek(func(tx *Tx) error {
			runs++
			got = string(tx.tx.Bucket(bucket).Get([]byte("k")))
			if want != "" && got != want {
				return fmt.Errorf("k is %q", got)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("peek: %v", err)
		}
		return got, runs
	}
	put("one")
	if got, _ := peek(""); got != "one" {
		t.Fatalf("b peeks k as %q", got) // a read: b's cache now holds k
	}
	put("two")
	tests := []struct {
		name string
		age  time.Duration // how long ago the server last showed b's cache current
		want string        // what fn insists on; "" takes anything
		got  string
		runs int
	}{
		{"fresh: from memory", 0, "", "one", 1},
		{"fresh, but fn fails there: again on the server", 0, "two", "two", 2},
		{"stale: on the server", 2 * pgPeekFresh, "", "two", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			put("two")
			// b's cache knows k as "one" again, seen current age ago.
			b.pg.cache.mu.Lock()
			b.pg.cache.vals[pgKey{string(bucket), "k"}] = pgValue{[]byte("one"), true}
			b.pg.cache.seen = time.Now().Add(-tc.age)
			b.pg.cache.mu.Unlock()
			got, runs := peek(tc.want)
			if got != tc.got || runs != tc.runs {
				t.Errorf("peek read %q in %d runs, want %q in %d", got, runs, tc.got, tc.runs)
			}
		})
	}
}

// The values and the change log are compressed with lz4 where the server
// has it.
func TestPgCompression(t *testing.T) {
	a, _ := twoInstances(t)
	ctx := t.Context()
	// Local to the statement's own transaction: the pool's connection
	// keeps its settings.
	if _, err := a.pg.pool.Exec(ctx, "SELECT set_config('default_toast_compression', 'lz4', true)"); err != nil {
		t.Skipf("the server has no lz4: %v", err)
	}
	rows, err := a.pg.pool.Query(ctx, `SELECT attrelid::regclass::text || '.' || attname, attcompression::text
		FROM pg_attribute WHERE attrelid IN ('sb_kv'::regclass, 'sb_changes'::regclass)
		AND attname IN ('value', 'keys', 'vals') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var col, method string
		if err := rows.Scan(&col, &method); err != nil {
			t.Fatal(err)
		}
		if n++; method != "l" {
			t.Errorf("%s is compressed by %q, not lz4", col, method)
		}
	}
	if err := rows.Err(); err != nil || n != 3 {
		t.Fatalf("%d columns: %v", n, err)
	}
}
