package store

// The store's tests are one suite for both engines: with
// SWITCHBOARD_STORE_SUITE=postgres (make test runs the package that way
// too) openTestDB opens each test's database on a real PostgreSQL server
// that TestMain starts, in a schema of its own, instead of a bbolt file.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
)

// pgServer is the PostgreSQL server of a run on PostgreSQL; nil on bbolt.
var pgServer *pgtest.Server

// pgURLs maps each *DB the suite opened on PostgreSQL to its URL, for
// reopenTestDB.
var pgURLs sync.Map

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &pgServer)) }

// openPGTestDB opens a store in a new schema of the suite's database.
func openPGTestDB(t testing.TB, opts Options) *DB {
	t.Helper()
	url := pgServer.Schema(t)
	db, err := OpenPostgres(url, opts)
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	pgURLs.Store(db, url)
	return db
}

// reopenTestDB closes db and opens the same database again, as a restart
// does.
func reopenTestDB(t testing.TB, db *DB, opts Options) *DB {
	t.Helper()
	where, open := db.Path(), Open
	if pgServer != nil {
		u, _ := pgURLs.Load(db)
		where, open = u.(string), OpenPostgres
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := open(where, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if pgServer != nil {
		pgURLs.Store(again, where)
	}
	return again
}

// skipSync turns bbolt's fsync off for a test of many commits whose
// durability is not what it tests; PostgreSQL keeps its own.
func skipSync(db *DB) {
	if db.bolt != nil {
		db.bolt.NoSync = true
	}
}

// The run is on the engine it says it is on.
func TestSuiteEngine(t *testing.T) {
	db := openTestDB(t, Options{})
	if onPG := db.pg != nil; onPG != (pgServer != nil) {
		t.Fatalf("on PostgreSQL: %v; the run asked for it: %v", onPG, pgServer != nil)
	}
	if pgServer != nil && !strings.Contains(db.Path(), "postgres://") {
		t.Errorf("Path() = %q", db.Path())
	}
}

// Two instances on one PostgreSQL database, as two machines: eight
// claimers, four on each, drain the queue one instance filled, each claim
// audited in its transaction. Every packet is claimed once, no lease is
// given twice, and the one audit chain verifies from either instance.
func TestTwoInstancesShareTheQueue(t *testing.T) {
	if pgServer == nil {
		t.Skip("two instances share a database on PostgreSQL only")
	}
	const packets, perInstance = 300, 4
	w := newWorkEnv(t)
	u, _ := pgURLs.Load(w.db)
	other, err := OpenPostgres(u.(string), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	mustUpdate(t, w.db, func(tx *Tx) error {
		for i := range packets {
			if _, err := tx.CreatePacket(PacketSpec{RepositoryID: w.repo.ID, Title: fmt.Sprint("p", i), Priority: i % 5}); err != nil {
				return err
			}
		}
		return nil
	})
	type claim struct{ pkt, lease, session string }
	var mu sync.Mutex
	var claims []claim
	var wg sync.WaitGroup
	for i, db := range []*DB{w.db, other} {
		for g := range perInstance {
			session := fmt.Sprintf("ses_%d_%d", i, g)
			wg.Go(func() {
				for {
					var p Packet
					var ok bool
					err := db.Update(context.Background(), func(tx *Tx) error {
						var err error
						if p, ok, err = tx.ClaimPacket(w.repo.ID, session, time.Minute); err != nil || !ok {
							return err
						}
						return tx.AppendAudit(&AuditRecord{Transport: "test", SessionID: session, Method: "work.await_packet", Outcome: "ok"})
					})
					if err != nil {
						t.Errorf("%s: %v", session, err)
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					claims = append(claims, claim{p.ID, p.Lease.ID, session})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	byPacket, leases, bySide := map[string]string{}, map[string]bool{}, map[byte]int{}
	for _, c := range claims {
		if prev, dup := byPacket[c.pkt]; dup {
			t.Errorf("packet %s claimed by %s and %s", c.pkt, prev, c.session)
		}
		byPacket[c.pkt] = c.session
		if leases[c.lease] {
			t.Errorf("lease %s given twice", c.lease)
		}
		leases[c.lease] = true
		bySide[c.session[4]]++
	}
	if len(byPacket) != packets {
		t.Errorf("%d packets claimed, want %d", len(byPacket), packets)
	}
	if bySide['0'] == 0 || bySide['1'] == 0 {
		t.Errorf("claims by instance: %v; want both to have claimed", bySide)
	}
	for i, db := range []*DB{w.db, other} {
		var v AuditVerification
		mustView(t, db, func(tx *Tx) (err error) { v, err = tx.VerifyAudit(); return err })
		if v.Records < packets {
			t.Errorf("instance %d verified %d records, want at least %d", i, v.Records, packets)
		}
	}
}

// What one instance writes, the other reads next, in a read and in a
// write, and a write that failed leaves nothing behind.
func TestInstancesSeeEachOthersWrites(t *testing.T) {
	if pgServer == nil {
		t.Skip("two instances share a database on PostgreSQL only")
	}
	a := openTestDB(t, Options{})
	u, _ := pgURLs.Load(a)
	b, err := OpenPostgres(u.(string), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	key := []byte("k")
	put := func(db *DB, v string) {
		t.Helper()
		mustUpdate(t, db, func(tx *Tx) error { return tx.tx.Bucket(bucketSettings).Put(key, []byte(v)) })
	}
	read := func(db *DB, update bool) string {
		t.Helper()
		var got string
		fn := func(tx *Tx) error { got = string(tx.tx.Bucket(bucketSettings).Get(key)); return nil }
		if update {
			mustUpdate(t, db, fn)
		} else {
			mustView(t, db, fn)
		}
		return got
	}
	for _, update := range []bool{false, true} {
		put(a, "a1")
		if got := read(a, update); got != "a1" {
			t.Fatalf("a reads %q after its own write, want a1", got)
		}
		put(b, "b1")
		if got := read(a, update); got != "b1" {
			t.Errorf("update %v: a reads %q after b's write, want b1", update, got)
		}
	}
	put(a, "a2")
	errBoom := errors.New("boom")
	if err := b.Update(context.Background(), func(tx *Tx) error {
		if err := tx.tx.Bucket(bucketSettings).Put(key, []byte("rolled back")); err != nil {
			return err
		}
		return errBoom
	}); !errors.Is(err, errBoom) {
		t.Fatal(err)
	}
	if got := read(a, false); got != "a2" {
		t.Errorf("after b's rolled-back write a reads %q, want a2", got)
	}
}

// Instances that start together on a new database make its tables and
// apply each migration once: they queue on the writer lock, and every one
// after the first finds the schema done.
func TestInstancesStartTogether(t *testing.T) {
	if pgServer == nil {
		t.Skip("instances share a database on PostgreSQL only")
	}
	url := pgServer.Schema(t)
	const n = 6
	dbs := make([]*DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dbs[i], errs[i] = OpenPostgres(url, Options{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		t.Cleanup(func() { dbs[i].Close() })
	}
	mustView(t, dbs[0], func(tx *Tx) error {
		v := tx.tx.Bucket(bucketMeta).Get(keySchemaVersion)
		if len(v) != 8 || int(binary.BigEndian.Uint64(v)) != SchemaVersion() {
			t.Errorf("schema version %x, want %d", v, SchemaVersion())
		}
		return nil
	})
	// A migration applied twice would have failed (CreateBucket of a
	// bucket that exists) or left a second audit index; the chain and
	// its index verify.
	mustUpdate(t, dbs[1], func(tx *Tx) error {
		return tx.AppendAudit(&AuditRecord{Transport: "test", Method: "status", Outcome: "ok"})
	})
	var v AuditVerification
	mustView(t, dbs[2], func(tx *Tx) (err error) { v, err = tx.VerifyAudit(); return err })
	if v.Records != 1 {
		t.Errorf("verified %d records, want 1", v.Records)
	}
}
