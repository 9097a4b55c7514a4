package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/store"
)

const testVersion = "1.2.3-test"

// fixture is a registry over a fresh database in t.TempDir(), with a fake
// clock, a fake Env and a debug-level logger writing to logs.
type fixture struct {
	db    *store.DB
	clock *coretest.Clock
	env   *coretest.Env
	logs  *coretest.SyncBuffer
	log   *slog.Logger
	reg   *Registry
}

func openTestDB(t testing.TB, clock *coretest.Clock) *store.DB {
	t.Helper()
	return stores.Open(t, store.Options{Now: clock.Now})
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{clock: coretest.NewClock(), env: &coretest.Env{}, logs: &coretest.SyncBuffer{}}
	f.db = openTestDB(t, f.clock)
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.reg = New(f.db, Options{Version: testVersion, Env: f.env, Log: f.log})
	return f
}

func (f *fixture) update(t testing.TB, fn func(*store.Tx) error) {
	t.Helper()
	coretest.Update(t, f.db, fn)
}

func (f *fixture) view(t testing.TB, fn func(*store.Tx) error) {
	t.Helper()
	coretest.View(t, f.db, fn)
}

// allGrants grants every agent capability on every repository.
func allGrants() []store.Grant { return coretest.AllGrants() }

// createToken mints a token straight in the store and returns it with its
// raw form.
func (f *fixture) createToken(t testing.TB, spec store.TokenSpec) (store.Token, string) {
	t.Helper()
	return coretest.CreateToken(t, f.db, spec)
}

// createClientToken mints the client token and records it as such.
func (f *fixture) createClientToken(t testing.TB) (store.Token, string) {
	t.Helper()
	tok, raw := f.createToken(t, store.TokenSpec{Label: "client", Kind: store.KindClient, Grants: allGrants()})
	f.update(t, func(tx *store.Tx) error { return tx.SetSetting(SettingClientKeyID, tok.KeyID) })
	return tok, raw
}

func (f *fixture) registerRepo(t testing.TB, path string) store.Repository {
	t.Helper()
	return coretest.RegisterRepo(t, f.db, path)
}

func (f *fixture) token(t testing.TB, keyID string) store.Token {
	t.Helper()
	return coretest.Token(t, f.db, keyID)
}

// audit returns every audit record, oldest first.
func (f *fixture) audit(t testing.TB) []store.AuditRecord {
	t.Helper()
	return coretest.Audit(t, f.db)
}

// auditRecord returns the record with id, failing the test when absent.
func (f *fixture) auditRecord(t testing.TB, id string) store.AuditRecord {
	t.Helper()
	return coretest.AuditRecord(t, f.db, id)
}

func (f *fixture) invoke(p Principal, tr Transport, method string, args string) Result {
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	return f.reg.Invoke(context.Background(), p, tr, method, raw)
}

// wantCode fails the test unless res ended with code, and has an audit id.
func wantCode(t testing.TB, res Result, code store.Code) {
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
func waitParked(t testing.TB, reg *Registry, key, what string) {
	t.Helper()
	waitUntil(t, what, func() bool { return reg.Parked(key) })
}

// createPacket makes a packet on repo as the operator, with extra
// arguments besides a title and instructions.
func (f *fixture) createPacket(t *testing.T, repo string, extra map[string]any) string {
	t.Helper()
	args := map[string]any{"repository_id": repo, "title": "fix it", "instructions": "do the thing"}
	for k, v := range extra {
		args[k] = v
	}
	b, _ := json.Marshal(args)
	res := f.reg.Invoke(t.Context(), OperatorPrincipal(), TransportRPC, "work.create", b)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Value.(PacketResult).Packet.ID
}
