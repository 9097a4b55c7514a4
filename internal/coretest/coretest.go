// Package coretest is what the core's tests and its transports' tests
// share: a store on the run's engine (a bbolt file, or with
// SWITCHBOARD_STORE_SUITE=postgres a schema of a real PostgreSQL server the
// run starts), a settable clock, a stand-in for the app's Env, a log buffer
// safe for concurrent handlers, and the store-level steps every fixture
// takes (a token, a repository, the audit log). It imports nothing of the
// core, so the core's own tests can use it.
package coretest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// Stores opens each test's store on the run's engine. A test package holds
// one, set up by its TestMain through Main.
type Stores struct {
	pg   *pgtest.Server // nil on bbolt
	urls sync.Map       // *store.DB -> its PostgreSQL URL
}

// Main runs a package's tests with s: on PostgreSQL when the suite asks
// for it (pgtest.Main). It is also the sandbox helper of the confined
// agents the tests start (confine.RunHelper returns at once for the tests
// themselves).
func Main(m *testing.M, s *Stores) {
	confine.RunHelper(os.Args)
	os.Exit(pgtest.Main(m, &s.pg))
}

// OnPostgres reports whether the run's stores are on PostgreSQL.
func (s *Stores) OnPostgres() bool { return s.pg != nil }

// Open opens a fresh store with opts on the run's engine and closes it when
// the test ends.
func (s *Stores) Open(t testing.TB, opts store.Options) *store.DB {
	t.Helper()
	var db *store.DB
	var err error
	if s.pg != nil {
		url := s.pg.Schema(t)
		db, err = store.OpenPostgres(url, opts)
		s.urls.Store(db, url)
	} else {
		db, err = store.Open(filepath.Join(t.TempDir(), "state.db"), opts)
	}
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// URL is the PostgreSQL URL db was opened on, "" on bbolt.
func (s *Stores) URL(db *store.DB) string {
	u, _ := s.urls.Load(db)
	url, _ := u.(string)
	return url
}

// Bytes is everything db holds, as bytes to search: the bbolt file, or
// every key and value of the PostgreSQL schema.
func (s *Stores) Bytes(t testing.TB, db *store.DB) []byte {
	t.Helper()
	if s.pg == nil {
		b, err := os.ReadFile(db.Path())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL(db))
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

// Clock is a settable clock for store.Options.Now, safe for concurrent
// transactions.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a clock at a fixed moment.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Env stands in for the app's side of the registry (mcpserver.Env) and
// records the client token's rotations. OnRotated, when set, runs inside
// ClientTokenRotated, so a test can look at the database at the moment the
// new token is handed over; RotateErr is what that hand-over fails with.
type Env struct {
	OnRotated func(raw string)
	RotateErr error

	mu      sync.Mutex
	rotated []string
}

func (e *Env) Endpoint() string     { return "http://127.0.0.1:1/mcp" }
func (e *Env) Running() bool        { return true }
func (e *Env) KeyringState() string { return "test" }

// ClientToken is the client token last handed over, "" before any.
func (e *Env) ClientToken() (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.rotated) == 0 {
		return "", nil
	}
	return e.rotated[len(e.rotated)-1], nil
}

// ClientTokenRotated records raw as the client token.
func (e *Env) ClientTokenRotated(raw string) error {
	if e.OnRotated != nil {
		e.OnRotated(raw)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rotated = append(e.rotated, raw)
	return e.RotateErr
}

// Rotations are the client tokens handed over, oldest first.
func (e *Env) Rotations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.rotated)
}

// SyncBuffer is a bytes.Buffer safe for the concurrent writes of a logger
// shared by HTTP handlers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Update runs fn in a write transaction of db, failing the test on error.
func Update(t testing.TB, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// View runs fn in a read transaction of db, failing the test on error.
func View(t testing.TB, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// AllGrants grants every agent capability on every repository.
func AllGrants() []store.Grant {
	var gs []store.Grant
	for _, c := range store.AgentCapabilities() {
		gs = append(gs, store.Grant{Capability: c, Repositories: []string{store.AllRepositories}})
	}
	return gs
}

// CreateToken mints a token straight in the store and returns it with its
// raw form.
func CreateToken(t testing.TB, db *store.DB, spec store.TokenSpec) (tok store.Token, raw string) {
	t.Helper()
	Update(t, db, func(tx *store.Tx) error {
		var err error
		tok, raw, err = tx.CreateToken(spec)
		return err
	})
	return tok, raw
}

// RegisterRepo registers the folder path.
func RegisterRepo(t testing.TB, db *store.DB, path string) (repo store.Repository) {
	t.Helper()
	Update(t, db, func(tx *store.Tx) error {
		var err error
		repo, _, err = tx.RegisterRepository("", path)
		return err
	})
	return repo
}

// Token reads the token keyID, failing the test when there is none.
func Token(t testing.TB, db *store.DB, keyID string) (tok store.Token) {
	t.Helper()
	View(t, db, func(tx *store.Tx) error {
		var ok bool
		var err error
		tok, ok, err = tx.Token(keyID)
		if err == nil && !ok {
			t.Fatalf("token %s not found", keyID)
		}
		return err
	})
	return tok
}

// Audit returns every audit record, oldest first.
func Audit(t testing.TB, db *store.DB) []store.AuditRecord {
	t.Helper()
	var recs []store.AuditRecord
	View(t, db, func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Limit: 1000, Views: true})
		return err
	})
	// QueryAudit without AfterSeq is newest first.
	slices.Reverse(recs)
	return recs
}

// AuditRecord returns the record with id, failing the test when absent.
func AuditRecord(t testing.TB, db *store.DB, id string) store.AuditRecord {
	t.Helper()
	if !strings.HasPrefix(id, "aud_") {
		t.Fatalf("audit id %q does not start with aud_", id)
	}
	for _, r := range Audit(t, db) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no audit record %s", id)
	return store.AuditRecord{}
}

// SecretOf returns the secret part of a raw token.
func SecretOf(t testing.TB, raw string) string {
	t.Helper()
	_, secret, err := store.ParseToken(raw)
	if err != nil {
		t.Fatalf("ParseToken: %v", err)
	}
	return secret
}
