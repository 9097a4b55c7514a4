package store

// The store's tests are one suite for both engines: with
// SWITCHBOARD_STORE_SUITE=postgres (make test runs the package that way
// too) openTestDB opens each test's database on a real PostgreSQL server
// that TestMain starts, in a schema of its own, instead of a bbolt file.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
)

// suite is the PostgreSQL server of a run on PostgreSQL; nil on bbolt.
var suite *pgSuite

type pgSuite struct {
	server  *pgtest.Server
	schemas atomic.Int64
	urls    sync.Map // *DB -> the URL it was opened with
}

func TestMain(m *testing.M) {
	if os.Getenv("SWITCHBOARD_STORE_SUITE") != "postgres" {
		os.Exit(m.Run())
	}
	s, stop, err := pgtest.Shared()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	suite = &pgSuite{server: s}
	code := m.Run()
	stop()
	os.Exit(code)
}

// open opens a store in a new schema of the suite's database.
func (p *pgSuite) open(t testing.TB, opts Options) *DB {
	t.Helper()
	schema := fmt.Sprintf("t%d", p.schemas.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, p.server.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "CREATE SCHEMA "+schema)
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenPostgres(p.server.URL("postgres")+"&search_path="+schema, opts)
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	p.urls.Store(db, p.server.URL("postgres")+"&search_path="+schema)
	return db
}

// reopenTestDB closes db and opens the same database again, as a restart
// does.
func reopenTestDB(t testing.TB, db *DB, opts Options) *DB {
	t.Helper()
	where := db.Path()
	if suite != nil {
		u, _ := suite.urls.Load(db)
		where = u.(string)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	open := Open
	if suite != nil {
		open = OpenPostgres
	}
	again, err := open(where, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if suite != nil {
		suite.urls.Store(again, where)
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

// boltOnly skips a test of bbolt's own file (its pages, its lock, its
// format) on a run on PostgreSQL.
func boltOnly(t testing.TB) {
	t.Helper()
	if suite != nil {
		t.Skip("a test of bbolt's file: the run is on PostgreSQL")
	}
}

// The run is on the engine it says it is on.
func TestSuiteEngine(t *testing.T) {
	db := openTestDB(t, Options{})
	if onPG := db.pg != nil; onPG != (suite != nil) {
		t.Fatalf("on PostgreSQL: %v; the run asked for it: %v", onPG, suite != nil)
	}
	if suite != nil && !strings.Contains(db.Path(), "postgres://") {
		t.Errorf("Path() = %q", db.Path())
	}
}
