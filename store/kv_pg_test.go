package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// twoInstances opens a test database twice, as two instances do; on
// bbolt, which has no instances to share a file, it skips the test.
func twoInstances(t *testing.T) (a, b *DB) {
	t.Helper()
	a = openTestDB(t, Options{})
	if a.pg == nil {
		t.Skip("instances share a database on PostgreSQL only")
	}
	u, _ := pgURLs.Load(a)
	b, err := OpenPostgres(u.(string), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// mustCreateBucket makes bucket name in db and returns its name.
func mustCreateBucket(t *testing.T, db *DB, name string) []byte {
	t.Helper()
	mustUpdate(t, db, func(tx *Tx) error {
		_, err := tx.tx.CreateBucket([]byte(name))
		return err
	})
	return []byte(name)
}

// Writes of two instances, each reading a counter, writing it one up and
// appending to a log by the bucket's sequence: the writer lock lets none
// be lost or counted twice.
func TestPgWritesAcrossInstancesLoseNothing(t *testing.T) {
	a, b := twoInstances(t)
	bucket := mustCreateBucket(t, a, "counter_test")
	add := func(tx *Tx) error {
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
	const each = 60
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, db := range []*DB{a, a, b, b} {
		wg.Go(func() {
			for range each {
				if err := db.Update(context.Background(), add); err != nil {
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
	const total = 4 * each
	mustView(t, b, func(tx *Tx) error {
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
}

// A read sees the database as it was when the read began: another
// instance's commit in the middle of it shows in the next read, not in
// this one, for a key read before the commit and for one read after.
func TestPgReadsSeeOneSnapshot(t *testing.T) {
	a, b := twoInstances(t)
	bucket := mustCreateBucket(t, a, "snapshot_test")
	put := func(v string) {
		mustUpdate(t, b, func(tx *Tx) error {
			bk := tx.tx.Bucket(bucket)
			if err := bk.Put([]byte("k1"), []byte(v)); err != nil {
				return err
			}
			return bk.Put([]byte("k2"), []byte(v))
		})
	}
	put("before")
	var k1, k2 string
	mustView(t, a, func(tx *Tx) error {
		bk := tx.tx.Bucket(bucket)
		k1 = string(bk.Get([]byte("k1")))
		put("after") // committed by the other instance, here and now
		k2 = string(bk.Get([]byte("k2")))
		return nil
	})
	if k1 != "before" || k2 != "before" {
		t.Errorf("the read saw k1=%s k2=%s, want both as it began", k1, k2)
	}
	mustView(t, a, func(tx *Tx) error {
		if v := string(tx.tx.Bucket(bucket).Get([]byte("k2"))); v != "after" {
			t.Errorf("the next read sees k2=%s, want after", v)
		}
		return nil
	})
}

// A caller that leaves while its write waits for the writer lock gets its
// context's error at once, and its wait ends on the server too: when the
// writer holding the lock commits, nothing of the caller's runs, and the
// next writer goes straight through.
func TestPgCallerThatLeavesCancelsItsWait(t *testing.T) {
	a, _ := twoInstances(t)
	bucket := mustCreateBucket(t, a, "cancel_test")
	// The waiter's connections carry a name, for the lock table: other
	// tests' writers may wait for the lock too.
	u, _ := pgURLs.Load(a)
	b, err := OpenPostgres(u.(string)+"&application_name=cancel_test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- a.Update(context.Background(), func(tx *Tx) error {
			// A write takes the lock with its first read.
			tx.tx.Bucket(bucket).Get([]byte("k"))
			close(holding)
			<-release
			return tx.tx.Bucket(bucket).Put([]byte("k"), []byte("holder"))
		})
	}()
	<-holding
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan error, 1)
	go func() {
		waiting <- b.Update(ctx, func(tx *Tx) error {
			return tx.tx.Bucket(bucket).Put([]byte("k"), []byte("left"))
		})
	}()
	// The waiter is on the server, waiting for the lock, before it leaves.
	if err := waitForLockWaiters(ctx, a, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err = <-waiting
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
		t.Errorf("the caller that left got %v, want its context's error", err)
	}
	if err := waitForLockWaiters(context.Background(), a, 0); err != nil {
		t.Errorf("the server still waits for the caller that left: %v", err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, b, func(tx *Tx) error { return nil })
	mustView(t, b, func(tx *Tx) error {
		if v := string(tx.tx.Bucket(bucket).Get([]byte("k"))); v != "holder" {
			t.Errorf("k is %q, want the holder's write alone", v)
		}
		return nil
	})
}

// waitForLockWaiters waits until n of the connections named cancel_test
// wait for the writer lock, as the server's lock table says; each look is
// a round trip to it.
func waitForLockWaiters(ctx context.Context, db *DB, n int) error {
	for {
		var waiting int
		err := db.pg.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
			WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = 'cancel_test'`).Scan(&waiting)
		if err != nil {
			return fmt.Errorf("read the lock table: %w", err)
		}
		if waiting == n {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%d waiters for the lock, want %d: %w", waiting, n, err)
		}
	}
}

// Cursors walk what bbolt's walk in the same transaction: the bucket's
// rows with the transaction's own puts and deletes, both ways, from a
// seek, turning, across the engine's batches.
func TestPgCursorsWalkAsBbolt(t *testing.T) {
	pg, _ := twoInstances(t)
	bolt, err := Open(filepath.Join(t.TempDir(), "bolt.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			var walks [2][]string
			for i, db := range []*DB{bolt, pg} {
				walks[i] = walkAfterWrites(t, db, []byte("walk_test"), seed)
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

// walkAfterWrites empties bucket (made if missing), fills it with 400 of
// 700 keys, then in one transaction puts and deletes 150 keys at random
// and walks the bucket, returning every step.
func walkAfterWrites(t *testing.T, db *DB, bucket []byte, seed uint64) []string {
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
	mustUpdate(t, db, func(tx *Tx) error {
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
	})
	return steps
}

// The values are compressed with lz4 where the server has it.
func TestPgCompression(t *testing.T) {
	a, _ := twoInstances(t)
	ctx := t.Context()
	// Local to the statement's own transaction: the pool's connection
	// keeps its settings.
	if _, err := a.pg.pool.Exec(ctx, "SELECT set_config('default_toast_compression', 'lz4', true)"); err != nil {
		t.Skipf("the server has no lz4: %v", err)
	}
	var method string
	err := a.pg.pool.QueryRow(ctx, `SELECT attcompression::text FROM pg_attribute
		WHERE attrelid = 'sb_kv'::regclass AND attname = 'value'`).Scan(&method)
	if err != nil || method != "l" {
		t.Errorf("sb_kv.value is compressed by %q (%v), not lz4", method, err)
	}
}

// Open takes a file path, and refuses a database URL given as one
// (team mode's --database goes to OpenPostgres) before it makes a file.
func TestOpenRefusesADatabaseURL(t *testing.T) {
	tests := []struct {
		path string
		url  bool
	}{
		{"postgres://switchboard@/postgres?host=/tmp/s&sslmode=disable", true},
		{"postgresql://u:secret@db.example/sb", true},
		{"POSTGRES://u@h/sb", true},
		{"postgres?host=/run/postgresql", true},
		{"data/sb?dbname=sb&user=u", true},
		{"host=/run/postgresql dbname=sb", true},
		{"dbname=sb", true},
		{"switchboard.db", false},
		{"postgres", false},
		{"data/postgres.db", false},
		{"odd?name.db", false},
		{"a=b.db", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := isDatabaseURL(tc.path); got != tc.url {
				t.Fatalf("isDatabaseURL(%q) = %v, want %v", tc.path, got, tc.url)
			}
			if !tc.url {
				return
			}
			dir := t.TempDir()
			t.Chdir(dir)
			db, err := Open(tc.path, Options{})
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) opened a file", tc.path)
			}
			if bytes.Contains([]byte(err.Error()), []byte("secret")) {
				t.Errorf("the refusal quotes the password: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("Open(%q) left %s in the folder", tc.path, entries[0].Name())
			}
		})
	}
}

// What a read brings ahead of the store's asking (a session's trace head,
// the whole of packet_counts) does not hide the transaction's own writes.
func TestReadAheadKeepsTheTransactionsWrites(t *testing.T) {
	db := openTestDB(t, Options{})
	mustUpdate(t, db, func(tx *Tx) error {
		for _, kv := range [][3]string{{"trace_heads", "s", "committed"}, {"packet_counts", "a", "1"}, {"packet_counts", "b", "2"}} {
			if err := tx.tx.Bucket([]byte(kv[0])).Put([]byte(kv[1]), []byte(kv[2])); err != nil {
				return err
			}
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error {
		heads, counts := tx.tx.Bucket(bucketTraceHeads), tx.tx.Bucket(bucketPacketCounts)
		if err := heads.Put([]byte("s"), []byte("mine")); err != nil {
			return err
		}
		if err := counts.Put([]byte("a"), []byte("9")); err != nil {
			return err
		}
		if err := counts.Delete([]byte("b")); err != nil {
			return err
		}
		tx.tx.Bucket(bucketSessions).Get([]byte("s"))
		counts.Get([]byte("c"))
		got := fmt.Sprintf("%q %q %q %q", heads.Get([]byte("s")), counts.Get([]byte("a")), counts.Get([]byte("b")), counts.Get([]byte("c")))
		if want := `"mine" "9" "" ""`; got != want {
			t.Errorf("read back %s, want %s", got, want)
		}
		if counts.Get([]byte("b")) != nil || counts.Get([]byte("c")) != nil {
			t.Error("a deleted or missing counter reads as a value")
		}
		return nil
	})
}

// A bucket another instance made since this one last looked is found;
// one it dropped fails the transaction that was handed it, and the next
// finds it gone.
func TestPgBucketsAnotherInstanceMakesOrDrops(t *testing.T) {
	a, b := twoInstances(t)
	mustView(t, b, func(tx *Tx) error { return nil })
	mustView(t, b, func(tx *Tx) error { tx.tx.Bucket(bucketTokens).Get([]byte("k")); return nil })
	late := mustCreateBucket(t, a, "late_test")
	mustView(t, b, func(tx *Tx) error {
		if tx.tx.Bucket(late).Missing() {
			t.Error("the bucket the other instance made is missing")
		}
		return nil
	})
	mustUpdate(t, a, func(tx *Tx) error { return tx.tx.DeleteBucket(late) })
	err := b.View(t.Context(), func(tx *Tx) error {
		tx.tx.Bucket(late).Get([]byte("k"))
		return nil
	})
	if err == nil {
		t.Error("a transaction handed a dropped bucket succeeded")
	}
	mustView(t, b, func(tx *Tx) error {
		if !tx.tx.Bucket(late).Missing() {
			t.Error("the dropped bucket is still there")
		}
		return nil
	})
}
