package store

// The store's tests are one suite for both engines: with
// SWITCHBOARD_STORE_SUITE=postgres (make test runs the package that way
// too) openTestDB opens each test's database on a real PostgreSQL server
// that TestMain starts, in a schema of its own, instead of a bbolt file.

import (
	"os"
	"strings"
	"sync"
	"testing"

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
