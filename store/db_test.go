package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestOpenCreatesOwnerOnlyFolderAndFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "data", "switchboard")
	path := filepath.Join(dir, "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	for _, d := range []string{filepath.Join(root, "data"), dir} {
		if got := mode(t, d); got != 0o700 {
			t.Errorf("folder %s mode = %o, want 700", d, got)
		}
	}
	if got := mode(t, path); got != 0o600 {
		t.Errorf("file mode = %o, want 600", got)
	}
}

func TestOpenTightensLooseFile(t *testing.T) {
	for _, loose := range []os.FileMode{0o644, 0o666, 0o640, 0o604} {
		t.Run(loose.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			db, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := os.Chmod(path, loose); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, path); got != loose {
				t.Fatalf("setup: mode = %o, want %o", got, loose)
			}
			db, err = Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := mode(t, path); got != 0o600 {
				t.Errorf("after reopen mode = %o, want 600", got)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	// A regular file where the folder should be.
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	notDB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a bolt file ", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"parent is a file", filepath.Join(blocker, "state.db")},
		{"path is a directory", dir},
		{"not a bolt file", notDB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(tc.path, Options{LockTimeout: 200 * time.Millisecond})
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded, want an error")
			}
			if errors.Is(err, ErrLocked) || errors.Is(err, ErrNewerSchema) {
				t.Errorf("Open error %v must not claim locked/newer schema", err)
			}
		})
	}
}

// assertLocked opens path a second time and checks that it fails with
// ErrLocked, having waited about timeout and not much longer.
func assertLocked(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	db2, err := Open(path, Options{LockTimeout: timeout})
	elapsed := time.Since(start)
	if err == nil {
		db2.Close()
		t.Fatal("second Open succeeded while the first holds the lock")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	// bbolt polls every 50ms and gives up once timeout-50ms has passed.
	if lo := timeout - 100*time.Millisecond; elapsed < lo {
		t.Errorf("gave up after %s, want at least %s", elapsed, lo)
	}
	if hi := timeout + 1500*time.Millisecond; elapsed > hi {
		t.Errorf("gave up after %s, want at most %s", elapsed, hi)
	}
}

func TestOpenLockedInProcess(t *testing.T) {
	// bbolt's flock is per open file description, so a second Open in the
	// same process conflicts with the first (on Linux and the BSDs).
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertLocked(t, path, 200*time.Millisecond)
	// The first handle is still fine after the failed second open.
	mustUpdate(t, db, func(tx *Tx) error { return tx.SetSetting("k", "v") })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// And once it is closed the path opens again.
	db, err = Open(path, Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if got := tx.Setting("k"); got != "v" {
			t.Errorf("setting k = %q, want v", got)
		}
		return nil
	})
}

func TestOpenLockedDefaultTimeout(t *testing.T) {
	// LockTimeout 0 must mean DefaultLockTimeout, never bbolt's "forever".
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		db2, err := Open(path, Options{})
		if err == nil {
			db2.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("second Open: %v, want ErrLocked", err)
		}
		if elapsed := time.Since(start); elapsed < DefaultLockTimeout-100*time.Millisecond {
			t.Errorf("gave up after %s, want about %s", elapsed, DefaultLockTimeout)
		}
	case <-time.After(DefaultLockTimeout + 5*time.Second):
		t.Fatal("second Open with LockTimeout 0 did not give up")
	}
}

func TestOpenLockedAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runChild := func() string {
		t.Helper()
		out, err := helperCommand(t.Context(), t, "open", path).Output()
		if err != nil {
			t.Fatalf("child: %v (output %q)", err, out)
		}
		return strings.TrimSpace(string(out))
	}

	got := runChild()
	if !strings.HasPrefix(got, "locked ") {
		db.Close()
		t.Fatalf("child while parent holds the db: %q, want locked", got)
	}
	elapsed, err := time.ParseDuration(strings.TrimPrefix(got, "locked "))
	if err != nil {
		t.Fatalf("child output %q: %v", got, err)
	}
	if elapsed > 200*time.Millisecond+1500*time.Millisecond {
		t.Errorf("child gave up after %s", elapsed)
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := runChild(); got != "ok" {
		t.Fatalf("child after parent closed: %q, want ok", got)
	}
}

func TestOpenNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, u64(uint64(SchemaVersion()+1)))
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}

	db, err = Open(path, Options{LockTimeout: 200 * time.Millisecond})
	if err == nil {
		db.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open: %v, want ErrNewerSchema", err)
	}
	// The failed Open released the file and left the version alone.
	b, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("file still locked after a failed Open: %v", err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		if got := tx.Bucket(bucketMeta).Get(keySchemaVersion); string(got) != string(u64(uint64(SchemaVersion()+1))) {
			t.Errorf("schema version changed to %x", got)
		}
		return nil
	})
}

func TestOpenRecordsSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	for i := range 2 { // fresh, then reopened
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustView(t, db, func(tx *Tx) error {
			if got := tx.StoredSchemaVersion(); got != SchemaVersion() {
				t.Errorf("open %d: stored schema version %d, want %d", i, got, SchemaVersion())
			}
			return nil
		})
		db.Close()
	}
}

// rawBolt opens a bare bbolt file for the migration tests.
func rawBolt(t *testing.T) *bolt.DB {
	t.Helper()
	b, err := bolt.Open(filepath.Join(t.TempDir(), "raw.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func storedVersion(t *testing.T, b *bolt.DB) int {
	t.Helper()
	v := 0
	b.View(func(tx *bolt.Tx) error {
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if raw := meta.Get(keySchemaVersion); len(raw) == 8 {
				v = int(binary.BigEndian.Uint64(raw))
			}
		}
		return nil
	})
	return v
}

func hasBucket(t *testing.T, b *bolt.DB, name string) bool {
	t.Helper()
	found := false
	b.View(func(tx *bolt.Tx) error {
		found = tx.Bucket([]byte(name)) != nil
		return nil
	})
	return found
}

func TestApplyMigrations(t *testing.T) {
	var calls map[int]int
	createBucket := func(v int, name string) migration {
		return migration{v, "create " + name, func(tx kvTx) error {
			calls[v]++
			b, err := tx.CreateBucket([]byte(name)) // fails if run twice
			if err != nil {
				return err
			}
			return b.Put([]byte("by"), []byte(name))
		}}
	}
	failing := func(v int) migration {
		return migration{v, "broken", func(tx kvTx) error {
			calls[v]++
			return errors.New("boom")
		}}
	}
	v1 := createBucket(1, "one")
	v2 := createBucket(2, "two")
	v3 := createBucket(3, "three")

	type step struct {
		ms          []migration
		wantErr     bool
		wantVersion int
		wantCalls   map[int]int // calls made by this step
		wantBuckets []string
		wantAbsent  []string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"v1 then v2 applies only the pending one", []step{
			{ms: []migration{v1}, wantVersion: 1, wantCalls: map[int]int{1: 1}, wantBuckets: []string{"one"}},
			{ms: []migration{v1}, wantVersion: 1, wantCalls: map[int]int{}},
			{ms: []migration{v1, v2}, wantVersion: 2, wantCalls: map[int]int{2: 1}, wantBuckets: []string{"one", "two"}},
			{ms: []migration{v1, v2}, wantVersion: 2, wantCalls: map[int]int{}},
		}},
		{"two pending at once", []step{
			{ms: []migration{v1, v2, v3}, wantVersion: 3, wantCalls: map[int]int{1: 1, 2: 1, 3: 1}, wantBuckets: []string{"one", "two", "three"}},
		}},
		{"failure on an empty db rolls back everything", []step{
			{ms: []migration{v1, failing(2)}, wantErr: true, wantVersion: 0, wantCalls: map[int]int{1: 1, 2: 1}, wantAbsent: []string{"one", string(bucketMeta)}},
			// The fixed release applies cleanly afterwards.
			{ms: []migration{v1, v2}, wantVersion: 2, wantCalls: map[int]int{1: 1, 2: 1}, wantBuckets: []string{"one", "two"}},
		}},
		{"failure after an applied version keeps that version", []step{
			{ms: []migration{v1}, wantVersion: 1, wantCalls: map[int]int{1: 1}},
			{ms: []migration{v1, v2, failing(3)}, wantErr: true, wantVersion: 1, wantCalls: map[int]int{2: 1, 3: 1}, wantBuckets: []string{"one"}, wantAbsent: []string{"two"}},
			{ms: []migration{v1, v2, v3}, wantVersion: 3, wantCalls: map[int]int{2: 1, 3: 1}, wantBuckets: []string{"one", "two", "three"}},
		}},
		{"newer stored version is refused", []step{
			{ms: []migration{v1, v2}, wantVersion: 2, wantCalls: map[int]int{1: 1, 2: 1}},
			{ms: []migration{v1}, wantErr: true, wantVersion: 2, wantCalls: map[int]int{}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := rawBolt(t)
			for i, s := range tc.steps {
				calls = map[int]int{}
				err := applyMigrations(b, s.ms)
				if (err != nil) != s.wantErr {
					t.Fatalf("step %d: err = %v, wantErr %v", i, err, s.wantErr)
				}
				if got := storedVersion(t, b); got != s.wantVersion {
					t.Errorf("step %d: version %d, want %d", i, got, s.wantVersion)
				}
				if len(calls) != len(s.wantCalls) {
					t.Errorf("step %d: calls %v, want %v", i, calls, s.wantCalls)
				}
				for v, n := range s.wantCalls {
					if calls[v] != n {
						t.Errorf("step %d: migration %d ran %d times, want %d", i, v, calls[v], n)
					}
				}
				for _, name := range s.wantBuckets {
					if !hasBucket(t, b, name) {
						t.Errorf("step %d: bucket %s missing", i, name)
					}
				}
				for _, name := range s.wantAbsent {
					if hasBucket(t, b, name) {
						t.Errorf("step %d: bucket %s should have been rolled back", i, name)
					}
				}
			}
		})
	}
}

func TestApplyMigrationsNewerIsErrNewerSchema(t *testing.T) {
	b := rawBolt(t)
	ms := []migration{{1, "one", func(kvTx) error { return nil }}, {2, "two", func(kvTx) error { return nil }}}
	if err := applyMigrations(b, ms); err != nil {
		t.Fatal(err)
	}
	if err := applyMigrations(b, ms[:1]); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
}

func TestMigrationsListIsWellFormed(t *testing.T) {
	if len(migrations) == 0 {
		t.Fatal("no migrations")
	}
	for i, m := range migrations {
		if m.version != i+1 {
			t.Errorf("migrations[%d].version = %d, want %d (append-only, no gaps)", i, m.version, i+1)
		}
		if m.name == "" || m.apply == nil {
			t.Errorf("migration %d has no name or no apply", m.version)
		}
	}
	if SchemaVersion() != migrations[len(migrations)-1].version {
		t.Errorf("SchemaVersion() = %d", SchemaVersion())
	}
}

// Every real migration must run on an empty database, both as part of the
// whole list (a fresh install) and on a database that stopped just before it
// (an upgrade).
func TestRealMigrationsRunOnEmptyDB(t *testing.T) {
	wantBuckets := map[int][]string{
		1: {"meta", "settings", "tokens", "repositories", "audit"},
		6: {"audit_shown"},
		8: {"packet_repo_counts"},
	}
	for i, m := range migrations {
		t.Run(m.name, func(t *testing.T) {
			b := rawBolt(t)
			if i > 0 {
				if err := applyMigrations(b, migrations[:i]); err != nil {
					t.Fatalf("migrations before %d: %v", m.version, err)
				}
			}
			if err := applyMigrations(b, migrations[:i+1]); err != nil {
				t.Fatalf("migration %d: %v", m.version, err)
			}
			if got := storedVersion(t, b); got != m.version {
				t.Errorf("version %d, want %d", got, m.version)
			}
			for _, name := range wantBuckets[m.version] {
				if !hasBucket(t, b, name) {
					t.Errorf("bucket %s missing after migration %d", name, m.version)
				}
			}
			// Running the same list again is a no-op.
			if err := applyMigrations(b, migrations[:i+1]); err != nil {
				t.Fatalf("rerun: %v", err)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		set         bool
		name, value string
		want        string // for a get
	}
	steps := []op{
		{name: "http_addr", want: ""},
		{set: true, name: "http_addr", value: "127.0.0.1:43127"},
		{name: "http_addr", want: "127.0.0.1:43127"},
		{set: true, name: "http_addr", value: "127.0.0.1:5000"},
		{name: "http_addr", want: "127.0.0.1:5000"},
		{set: true, name: "theme", value: "dark"},
		{name: "theme", want: "dark"},
		{set: true, name: "http_addr", value: ""}, // delete
		{name: "http_addr", want: ""},
		{set: true, name: "never_set", value: ""}, // deleting nothing is fine
		{name: "theme", want: "dark"},
		{name: "unicode ключ", want: ""},
		{set: true, name: "unicode ключ", value: "значение"},
		{name: "unicode ключ", want: "значение"},
	}
	for i, s := range steps {
		if s.set {
			if err := db.Update(context.Background(), func(tx *Tx) error { return tx.SetSetting(s.name, s.value) }); err != nil {
				t.Fatalf("step %d: SetSetting(%q, %q): %v", i, s.name, s.value, err)
			}
			continue
		}
		mustView(t, db, func(tx *Tx) error {
			if got := tx.Setting(s.name); got != s.want {
				t.Errorf("step %d: Setting(%q) = %q, want %q", i, s.name, got, s.want)
			}
			return nil
		})
	}
	if err := db.Update(context.Background(), func(tx *Tx) error { return tx.SetSetting("", "x") }); err == nil {
		t.Error("SetSetting with an empty name succeeded")
	}
	db.Close()

	// Settings survive a restart.
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if got := tx.Setting("theme"); got != "dark" {
			t.Errorf("after reopen theme = %q", got)
		}
		if got := tx.Setting("http_addr"); got != "" {
			t.Errorf("after reopen http_addr = %q, want deleted", got)
		}
		return nil
	})
}

func TestCheckHealthy(t *testing.T) {
	db := openTestDB(t, Options{})
	if err := db.Check(); err != nil {
		t.Fatalf("Check on a fresh db: %v", err)
	}
	// Enough data to span several pages in every bucket.
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range 300 {
			if _, _, err := tx.CreateToken(TokenSpec{Label: strings.Repeat("x", i%50)}); err != nil {
				return err
			}
			if _, _, err := tx.RegisterRepository("", "/src/r"+strings.Repeat("y", i%40)+string(rune('a'+i%26))); err != nil {
				return err
			}
			if err := tx.AppendAudit(&AuditRecord{Transport: "gui", Method: "m", Outcome: "ok"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := db.Check(); err != nil {
		t.Fatalf("Check after writes: %v", err)
	}
}

func TestTxTimeIsUTCAndFromClock(t *testing.T) {
	local := time.FixedZone("X", 5*3600)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, local)
	db := openTestDB(t, Options{Now: func() time.Time { return at }})
	check := func(tx *Tx) error {
		if !tx.Now().Equal(at) || tx.Now().Location() != time.UTC {
			t.Errorf("tx.Now() = %v, want %v in UTC", tx.Now(), at)
		}
		return nil
	}
	mustView(t, db, check)
	mustUpdate(t, db, check)
	mustView(t, db, func(tx *Tx) error {
		if tx.Writable() {
			t.Error("View tx is writable")
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error {
		if !tx.Writable() {
			t.Error("Update tx is not writable")
		}
		return nil
	})
}

func TestUpdateErrorRollsBack(t *testing.T) {
	db := openTestDB(t, Options{})
	boom := errors.New("boom")
	err := db.Update(context.Background(), func(tx *Tx) error {
		if err := tx.SetSetting("k", "v"); err != nil {
			return err
		}
		if _, _, err := tx.RegisterRepository("r", "/src/r"); err != nil {
			return err
		}
		if err := tx.AppendAudit(&AuditRecord{Method: "m", Outcome: "ok"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update: %v, want boom", err)
	}
	mustView(t, db, func(tx *Tx) error {
		c, err := tx.Counts(Scope{All: true})
		if err != nil {
			return err
		}
		if tx.Setting("k") != "" || c.Repositories != 0 || c.AuditRecords != 0 {
			t.Errorf("rolled-back Update left state: setting %q, counts %+v", tx.Setting("k"), c)
		}
		return nil
	})
}

// leakFreePages edits a closed bbolt file so that the last n ids of the
// active freelist are dropped: those pages become "unreachable unfreed",
// which bbolt's checker reports (one error each) but which reads and writes
// survive.
func leakFreePages(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	readAt := func(off int64, size int) []byte {
		b := make([]byte, size)
		if _, err := f.ReadAt(b, off); err != nil {
			t.Fatal(err)
		}
		return b
	}
	le := binary.NativeEndian // bbolt writes its pages in host order
	// Page header: id u64, flags u16, count u16, overflow u32 (16 bytes).
	// Meta after it: magic, version, pageSize, flags u32; root pgid, seq
	// u64; freelist u64 @48; pgid u64 @56; txid u64 @64.
	meta0 := readAt(0, 80)
	pageSize := int64(le.Uint32(meta0[24:]))
	meta1 := readAt(pageSize, 80)
	active := meta0
	if le.Uint64(meta1[64:]) > le.Uint64(meta0[64:]) {
		active = meta1
	}
	freelist := int64(le.Uint64(active[48:]))
	hdr := readAt(freelist*pageSize, 16)
	if flags := le.Uint16(hdr[8:]); flags != 0x10 {
		t.Fatalf("setup: page %d flags %#x, not a freelist page", freelist, flags)
	}
	count := le.Uint16(hdr[10:])
	if count == 0xFFFF || int(count) < n {
		t.Fatalf("setup: freelist holds %d ids, need %d (and < 65535)", count, n)
	}
	le.PutUint16(hdr[10:], count-uint16(n))
	if _, err := f.WriteAt(hdr[10:12], freelist*pageSize+10); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckReportsCorruption(t *testing.T) {
	for _, leaked := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d pages leaked", leaked), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			db, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// Copy-on-write updates leave freed pages behind.
			for i := range 20 {
				mustUpdate(t, db, func(tx *Tx) error {
					return tx.SetSetting(fmt.Sprint("k", i), strings.Repeat("v", 3000))
				})
			}
			mustUpdate(t, db, func(tx *Tx) error {
				for i := range 20 {
					if err := tx.SetSetting(fmt.Sprint("k", i), ""); err != nil {
						return err
					}
				}
				return nil
			})
			if err := db.Check(); err != nil {
				t.Fatalf("Check before corruption: %v", err)
			}
			db.Close()

			leakFreePages(t, path, leaked)

			db, err = Open(path, Options{})
			if err != nil {
				t.Fatalf("Open after corruption: %v", err)
			}
			defer db.Close()
			err = db.Check()
			if err == nil || !strings.Contains(err.Error(), "unreachable unfreed") {
				t.Fatalf("Check = %v, want an unreachable-page error", err)
			}
			// Check must not strand bbolt's checker goroutine on its channel
			// (it did when returning at the first of several errors).
			if stuck := stuckCheckers(); stuck != "" {
				t.Errorf("a bbolt checker goroutine is blocked after Check returned:\n%s", stuck)
			}
			// The database is still usable, including a write that grows it.
			mustUpdate(t, db, func(tx *Tx) error {
				return tx.SetSetting("big", strings.Repeat("x", 1<<20))
			})
		})
	}
}

// stuckCheckers returns the stacks of goroutines blocked sending from
// bbolt's tx_check.go. Once Check has drained the channel none can be: the
// checker has closed it. (A checker still running would not be blocked, so
// this never fails spuriously.)
func stuckCheckers() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "[chan send") && strings.Contains(g, "go.etcd.io/bbolt") && strings.Contains(g, "/tx_check.go:") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
