package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testwait"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const testVersion = "1.2.3-test"

// fakeClock is a settable clock for store.Options.Now, safe for the
// concurrent transactions of the HTTP tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeEnv is an Env whose client token rotations are recorded. onRotated,
// when set, runs inside ClientTokenRotated, so a test can look at the
// database at the moment the new token is handed over.
type fakeEnv struct {
	mu        sync.Mutex
	rotated   []string
	onRotated func(raw string)
	rotateErr error
}

func (e *fakeEnv) Endpoint() string     { return "http://127.0.0.1:1/mcp" }
func (e *fakeEnv) Running() bool        { return true }
func (e *fakeEnv) KeyringState() string { return "test" }
func (e *fakeEnv) ClientToken() (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.rotated) == 0 {
		return "", nil
	}
	return e.rotated[len(e.rotated)-1], nil
}

func (e *fakeEnv) ClientTokenRotated(raw string) error {
	if e.onRotated != nil {
		e.onRotated(raw)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rotated = append(e.rotated, raw)
	return e.rotateErr
}

func (e *fakeEnv) rotations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.rotated...)
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger
// shared by HTTP handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixture is a registry over a fresh database in t.TempDir(), with a fake
// clock, a fake Env and a debug-level logger writing to logs.
type fixture struct {
	db    *store.DB
	clock *fakeClock
	env   *fakeEnv
	logs  *syncBuffer
	log   *slog.Logger
	reg   *mcpserver.Registry
}

func openTestDB(t testing.TB, clock *fakeClock) *store.DB {
	t.Helper()
	return openStore(t, store.Options{Now: clock.Now})
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{clock: newFakeClock(), env: &fakeEnv{}, logs: &syncBuffer{}}
	f.db = openTestDB(t, f.clock)
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.reg = mcpserver.New(f.db, mcpserver.Options{Version: testVersion, Env: f.env, Log: f.log})
	return f
}

func (f *fixture) update(t testing.TB, fn func(*store.Tx) error) {
	t.Helper()
	if err := f.db.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func (f *fixture) view(t testing.TB, fn func(*store.Tx) error) {
	t.Helper()
	if err := f.db.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// allGrants grants every agent capability on every repository.
func allGrants() []store.Grant {
	var gs []store.Grant
	for _, c := range store.AgentCapabilities() {
		gs = append(gs, store.Grant{Capability: c, Repositories: []string{store.AllRepositories}})
	}
	return gs
}

// createToken mints a token straight in the store and returns it with its
// raw form.
func (f *fixture) createToken(t testing.TB, spec store.TokenSpec) (store.Token, string) {
	t.Helper()
	var tok store.Token
	var raw string
	f.update(t, func(tx *store.Tx) error {
		var err error
		tok, raw, err = tx.CreateToken(spec)
		return err
	})
	return tok, raw
}

// createClientToken mints the client token and records it as such.
func (f *fixture) createClientToken(t testing.TB) (store.Token, string) {
	t.Helper()
	tok, raw := f.createToken(t, store.TokenSpec{Label: "client", Kind: store.KindClient, Grants: allGrants()})
	f.update(t, func(tx *store.Tx) error { return tx.SetSetting(mcpserver.SettingClientKeyID, tok.KeyID) })
	return tok, raw
}

func (f *fixture) registerRepo(t testing.TB, path string) store.Repository {
	t.Helper()
	var repo store.Repository
	f.update(t, func(tx *store.Tx) error {
		var err error
		repo, _, err = tx.RegisterRepository("", path)
		return err
	})
	return repo
}

func (f *fixture) token(t testing.TB, keyID string) store.Token {
	t.Helper()
	var tok store.Token
	f.view(t, func(tx *store.Tx) error {
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

// audit returns every audit record, oldest first.
func (f *fixture) audit(t testing.TB) []store.AuditRecord {
	t.Helper()
	var recs []store.AuditRecord
	f.view(t, func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Limit: 1000, Views: true})
		return err
	})
	// QueryAudit without AfterSeq is newest first.
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs
}

// auditRecord returns the record with id, failing the test when absent.
func (f *fixture) auditRecord(t testing.TB, id string) store.AuditRecord {
	t.Helper()
	if !strings.HasPrefix(id, "aud_") {
		t.Fatalf("audit id %q does not start with aud_", id)
	}
	for _, r := range f.audit(t) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no audit record %s", id)
	return store.AuditRecord{}
}

func (f *fixture) invoke(p mcpserver.Principal, tr mcpserver.Transport, method string, args string) mcpserver.Result {
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	return f.reg.Invoke(context.Background(), p, tr, method, raw)
}

// wantCode fails the test unless res ended with code, and has an audit id.
func wantCode(t testing.TB, res mcpserver.Result, code store.Code) {
	t.Helper()
	if got := res.Code(); got != code {
		t.Fatalf("%s: outcome %q (err %v), want %q", res.Method, got, res.Err, code)
	}
	if !strings.HasPrefix(res.AuditID, "aud_") {
		t.Fatalf("%s: audit id %q, want aud_…", res.Method, res.AuditID)
	}
}

// remarshal turns v into generic JSON (maps, slices, float64).
func remarshal(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// waitParked waits until someone waits on the registry's signal key: a long
// poll has found nothing and parked, so what the test does next must wake
// it (its first try is audited only when it answers, so nothing else
// shows it).
func waitParked(t testing.TB, reg *mcpserver.Registry, key, what string) {
	t.Helper()
	testwait.Until(t, what, func() bool { return reg.Parked(key) })
}

// secretOf returns the secret part of a raw token.
func secretOf(t testing.TB, raw string) string {
	t.Helper()
	_, secret, err := store.ParseToken(raw)
	if err != nil {
		t.Fatalf("ParseToken: %v", err)
	}
	return secret
}
