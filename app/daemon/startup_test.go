package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// logBuffer collects a daemon's log lines; the daemon's goroutines write
// to it while the test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// auditLog returns every audit record of the running daemon, oldest first.
func (r *running) auditLog() []store.AuditRecord {
	r.t.Helper()
	var recs []store.AuditRecord
	err := r.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Limit: 10000})
		return err
	})
	if err != nil {
		r.t.Fatalf("read the audit log: %v", err)
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs
}

// The daemon's own writes while it starts (the client token in each of the
// ways it is found, the remembered port) are registry calls: each leaves an
// audit record over the startup transport, as the operator, and none of
// those records, nor any other, nor the log holds a token's secret.
func TestStartupWritesAreAudited(t *testing.T) {
	stale, _, _ := store.NewTokenSecret()
	envTok, envKeyID, _ := store.NewTokenSecret()
	wrongEnv := "sbt_" + envKeyID + "_" + strings.Repeat("A", 43)
	type step struct {
		cfg Config
		// fails: Start must fail; its records are read at the next start.
		fails bool
		// want are the startup records this start adds, "method outcome".
		want []string
	}
	off := mcpserver.ListenAddr{Off: true}
	kr, staleKR := keyring.NewMemory(), keyring.NewMemory()
	cases := []struct {
		name  string
		setup func(t *testing.T, p Paths)
		steps []step
	}{
		{"keyring", nil, []step{
			{cfg: Config{Keyring: kr}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.mint ok", "connection.remember_port ok"}},
			{cfg: Config{Keyring: kr}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.adopt ok", "connection.remember_port ok"}},
		}},
		// The keyring keeps a token of a database since deleted.
		{"stale keyring entry", func(t *testing.T, p Paths) {
			if err := staleKR.Set(context.Background(), KeyringService, keyringUser(p.Data), stale); err != nil {
				t.Fatal(err)
			}
		}, []step{
			{cfg: Config{Keyring: staleKR, Listen: off}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.adopt token_invalid", "client_token.mint ok"}},
		}},
		{"environment", nil, []step{
			{cfg: Config{Keyring: keyring.NewMemory(), EnvToken: envTok, Listen: off}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.import ok"}},
			{cfg: Config{Keyring: keyring.NewMemory(), EnvToken: wrongEnv, Listen: off}, fails: true, want: []string{"token.revoke_stale_ephemeral ok", "client_token.import token_invalid"}},
			{cfg: Config{Keyring: keyring.NewMemory(), EnvToken: envTok, Listen: off}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.import ok"}},
		}},
		{"no keyring", nil, []step{
			{cfg: Config{Keyring: &setOnlyFails{}, Listen: off}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.mint ok", "client_token.mark_ephemeral ok"}},
			{cfg: Config{Keyring: deadKeyring{}, Listen: off}, want: []string{"token.revoke_stale_ephemeral ok", "client_token.mint ok"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, logs := newPaths(t), &logBuffer{}
			if c.setup != nil {
				c.setup(t, p)
			}
			raws := []string{stale, envTok, wrongEnv}
			var want []string
			for i, s := range c.steps {
				cfg := s.cfg
				cfg.Paths = p
				cfg.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				want = append(want, s.want...)
				if s.fails {
					if _, err := Start(context.Background(), cfg); err == nil {
						t.Fatalf("start %d: Start succeeded, want a failure", i+1)
					}
					continue
				}
				d := start(t, cfg)
				raws = append(raws, d.clientToken())
				var got []string
				for _, rec := range d.auditLog() {
					if rec.Transport != string(mcpserver.TransportStartup) {
						continue
					}
					got = append(got, rec.Method+" "+rec.Outcome)
					if rec.KeyID != "" || rec.SessionID != "" {
						t.Errorf("start %d: %s was made by key %q session %q, want the operator", i+1, rec.Method, rec.KeyID, rec.SessionID)
					}
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("start %d: startup audit records\n\t%s\nwant\n\t%s", i+1, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
				}
				d.stop()
			}
			// Every record of every start, and every log line, is free of
			// every raw token this test saw and of its secret part.
			d := start(t, Config{Paths: p, Keyring: keyring.NewMemory(), Listen: off, Log: slog.New(slog.NewTextHandler(logs, nil))})
			raws = append(raws, d.clientToken())
			recs, err := json.Marshal(d.auditLog())
			if err != nil {
				t.Fatal(err)
			}
			d.stop()
			for _, raw := range raws {
				secret := raw[len("sbt_")+16+1:]
				for what, text := range map[string]string{"the audit log": string(recs), "the log": logs.String()} {
					if strings.Contains(text, raw) || strings.Contains(text, secret) {
						t.Errorf("%s holds a raw token or its secret", what)
					}
				}
			}
		})
	}
}
