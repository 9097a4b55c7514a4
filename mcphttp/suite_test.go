package mcphttp

// The registry's tests run on either store engine, as the store's do: with
// SWITCHBOARD_STORE_SUITE=postgres each test's database is a schema of a
// real PostgreSQL server that TestMain starts.

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// pgServer is the PostgreSQL server of a run on PostgreSQL; nil on bbolt.
var pgServer *pgtest.Server

// pgURLs maps each store opened on PostgreSQL to its URL.
var pgURLs sync.Map

// TestMain is also the sandbox helper of the confined agents the tests
// start (confine.RunHelper returns at once for the tests themselves).
func TestMain(m *testing.M) {
	confine.RunHelper(os.Args)
	os.Exit(pgtest.Main(m, &pgServer))
}

// openStore opens a fresh store with opts on the run's engine and closes
// it when the test ends.
func openStore(t testing.TB, opts store.Options) *store.DB {
	t.Helper()
	var db *store.DB
	var err error
	if pgServer != nil {
		url := pgServer.Schema(t)
		db, err = store.OpenPostgres(url, opts)
		pgURLs.Store(db, url)
	} else {
		db, err = store.Open(filepath.Join(t.TempDir(), "state.db"), opts)
	}
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// storeBytes is everything db holds, as bytes to search: the bbolt file,
// or every key and value of the PostgreSQL schema.
func storeBytes(t testing.TB, db *store.DB) []byte {
	t.Helper()
	if pgServer == nil {
		b, err := os.ReadFile(db.Path())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	u, _ := pgURLs.Load(db)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, u.(string))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT bucket, key, value FROM sb_kv")
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for rows.Next() {
		var bucket string
		var k, v []byte
		if err := rows.Scan(&bucket, &k, &v); err != nil {
			t.Fatal(err)
		}
		out = append(append(append(out, bucket...), k...), v...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
