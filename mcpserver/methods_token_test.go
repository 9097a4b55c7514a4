package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/store"
)

func (f *fixture) authenticate(t testing.TB, raw string) (store.Token, error) {
	t.Helper()
	var tok store.Token
	err := f.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		tok, err = tx.Authenticate(raw)
		return err
	})
	return tok, err
}

func TestTokenCreate(t *testing.T) {
	f := newFixture(t)
	args := `{"label":"ci","kind":"session","expires_in_seconds":60}`
	res := f.invoke(OperatorPrincipal(), TransportRPC, "token.create", args)
	wantCode(t, res, "ok")
	created := res.Value.(TokenCreated)
	tok, err := f.authenticate(t, created.Secret)
	if err != nil {
		t.Fatalf("the new token does not authenticate: %v", err)
	}
	if tok.KeyID != created.Token.KeyID || tok.Label != "ci" || tok.Kind != store.KindSession {
		t.Errorf("created %+v", tok)
	}
	if tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(f.clock.Now().Add(time.Minute)) {
		t.Errorf("expires at %v, want a minute from now", tok.ExpiresAt)
	}
	// No grants asked: every agent capability on every repository.
	var caps []store.Capability
	for _, g := range tok.Grants {
		if !slices.Equal(g.Repositories, []string{store.AllRepositories}) {
			t.Errorf("default grant %+v is not on every repository", g)
		}
		caps = append(caps, g.Capability)
	}
	if !slices.Equal(caps, store.AgentCapabilities()) {
		t.Errorf("default grants %v, want %v", caps, store.AgentCapabilities())
	}
	// The audit holds a digest of the arguments, and nothing of the secret.
	rec := f.auditRecord(t, res.AuditID)
	if rec.ArgsDigest != store.ArgsDigest([]byte(args)) || rec.Outcome != "ok" || rec.Transport != "rpc" {
		t.Errorf("audit record %+v", rec)
	}
	if b, _ := json.Marshal(f.audit(t)); strings.Contains(string(b), coretest.SecretOf(t, created.Secret)) {
		t.Error("audit log contains the new secret")
	}

	// Explicit grants, scoped.
	repo := f.registerRepo(t, "/src/a")
	res = f.invoke(OperatorPrincipal(), TransportRPC, "token.create", fmt.Sprintf(`{"label":"a","grants":[{"capability":"work:read","repositories":[%q]}]}`, repo.ID))
	wantCode(t, res, "ok")
	if g := res.Value.(TokenCreated).Token.Grants; len(g) != 1 || g[0].Capability != store.CapWorkRead || g[0].Repositories[0] != repo.ID {
		t.Errorf("grants %+v", g)
	}
	if k := res.Value.(TokenCreated).Token.Kind; k != store.KindOperator {
		t.Errorf("kind %q, want the default operator", k)
	}

	for _, bad := range []string{
		`{"kind":"client"}`, // there is one client token
		`{"grants":[{"capability":"fly","repositories":["*"]}]}`,
		`{"grants":[{"capability":"work:read","repositories":[]}]}`,
		`{"secret":"mine"}`,
		`{"kind":"sesion"}`,          // a typo must not mint a token
		`{"expires_in_seconds":-60}`, // nor a token that never expires
	} {
		before := len(f.audit(t))
		wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.create", bad), store.CodeInvalidArgument)
		var n int
		f.view(t, func(tx *store.Tx) error { toks, err := tx.Tokens(); n = len(toks); return err })
		if n != 2 {
			t.Errorf("token.create %s left %d tokens, want 2", bad, n)
		}
		if len(f.audit(t)) != before+1 {
			t.Errorf("token.create %s was not audited once", bad)
		}
	}
}

func TestTokenListHoldsNoSecrets(t *testing.T) {
	f := newFixture(t)
	client, clientRaw := f.createClientToken(t)
	_, otherRaw := f.createToken(t, store.TokenSpec{Label: "other", Grants: allGrants()})
	revoked, revokedRaw := f.createToken(t, store.TokenSpec{Label: "revoked", Grants: allGrants()})
	past := f.clock.Now().Add(-time.Second)
	_, expiredRaw := f.createToken(t, store.TokenSpec{Label: "expired", ExpiresAt: &past})
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", fmt.Sprintf(`{"keyid":%q}`, revoked.KeyID)), "ok")

	for _, tc := range []struct {
		args string
		want int
	}{{"", 2}, {`{"all":false}`, 2}, {`{"all":true}`, 4}} {
		res := f.invoke(OperatorPrincipal(), TransportRPC, "token.list", tc.args)
		wantCode(t, res, "ok")
		b, err := json.Marshal(res.Value)
		if err != nil {
			t.Fatal(err)
		}
		out := string(b)
		for _, needle := range []string{"salt", "hash", "secret"} {
			if strings.Contains(strings.ToLower(out), needle) {
				t.Errorf("token.list %s mentions %q: %s", tc.args, needle, out)
			}
		}
		for _, raw := range []string{clientRaw, otherRaw, revokedRaw, expiredRaw} {
			if strings.Contains(out, coretest.SecretOf(t, raw)) {
				t.Errorf("token.list %s contains a secret", tc.args)
			}
		}
		var list struct {
			Tokens      []store.Token `json:"tokens"`
			ClientKeyID string        `json:"client_keyid"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Tokens) != tc.want || list.ClientKeyID != client.KeyID {
			t.Errorf("token.list %s: %d tokens, client %q; want %d, %q", tc.args, len(list.Tokens), list.ClientKeyID, tc.want, client.KeyID)
		}
	}
}

func TestTokenRevoke(t *testing.T) {
	f := newFixture(t)
	client, clientRaw := f.createClientToken(t)
	other, otherRaw := f.createToken(t, store.TokenSpec{Label: "other", Grants: allGrants()})

	res := f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", fmt.Sprintf(`{"keyid":%q}`, other.KeyID))
	wantCode(t, res, "ok")
	if _, err := f.authenticate(t, otherRaw); store.CodeOf(err) != store.CodeTokenRevoked {
		t.Errorf("revoked token authenticates with %v", err)
	}
	// Revoking twice is fine; an unknown key id is not found.
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", fmt.Sprintf(`{"keyid":%q}`, other.KeyID)), "ok")
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", `{"keyid":"0000000000000000"}`), store.CodeNotFound)

	// The client token is rotated, never revoked.
	res = f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", fmt.Sprintf(`{"keyid":%q}`, client.KeyID))
	wantCode(t, res, store.CodeInvalidArgument)
	if _, err := f.authenticate(t, clientRaw); err != nil {
		t.Errorf("client token after a refused revoke: %v", err)
	}
	if rec := f.auditRecord(t, res.AuditID); rec.Outcome != string(store.CodeInvalidArgument) || rec.Method != "token.revoke" {
		t.Errorf("audit record %+v", rec)
	}
}

func TestTokenRotateClient(t *testing.T) {
	f := newFixture(t)
	old, oldRaw := f.createClientToken(t)
	old = f.token(t, old.KeyID)

	// When the new token is handed over, its transaction has committed: a
	// fresh transaction sees it as the client token, live, and the old one
	// revoked.
	var seen []string
	f.env.OnRotated = func(raw string) {
		var setting string
		var newErr, oldErr error
		f.db.View(context.Background(), func(tx *store.Tx) error {
			setting = tx.Setting(SettingClientKeyID)
			_, newErr = tx.Authenticate(raw)
			_, oldErr = tx.Authenticate(oldRaw)
			return nil
		})
		seen = append(seen, fmt.Sprintf("setting=%s new=%v old=%s", setting, newErr, store.CodeOf(oldErr)))
	}
	res := f.invoke(OperatorPrincipal(), TransportGUI, "token.rotate", "")
	wantCode(t, res, "ok")
	created := res.Value.(TokenCreated)
	if got := f.env.Rotations(); len(got) != 1 || got[0] != created.Secret {
		t.Fatalf("ClientTokenRotated got %d calls, want one with the new raw token", len(got))
	}
	if want := fmt.Sprintf("setting=%s new=<nil> old=token_revoked", created.Token.KeyID); len(seen) != 1 || seen[0] != want {
		t.Errorf("at ClientTokenRotated: %v, want %q", seen, want)
	}
	nt := created.Token
	if nt.KeyID == old.KeyID || nt.Label != old.Label || nt.Kind != store.KindClient || fmt.Sprint(nt.Grants) != fmt.Sprint(old.Grants) {
		t.Errorf("rotated token %+v, old %+v", nt, old)
	}
	if f.token(t, old.KeyID).RevokedAt == nil {
		t.Error("old client token not revoked")
	}

	// Rotation by explicit key id works the same, and is refused for the
	// key id just revoked.
	res = f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", fmt.Sprintf(`{"keyid":%q}`, nt.KeyID))
	wantCode(t, res, "ok")
	if n := len(f.env.Rotations()); n != 2 {
		t.Errorf("%d rotations handed over, want 2", n)
	}
	res = f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", fmt.Sprintf(`{"keyid":%q}`, nt.KeyID))
	wantCode(t, res, store.CodeTokenRevoked)
	if n := len(f.env.Rotations()); n != 2 {
		t.Errorf("a refused rotation handed over a token (%d calls)", n)
	}

	// token.client answers what the Env holds.
	cl := f.invoke(OperatorPrincipal(), TransportRPC, "token.client", "")
	wantCode(t, cl, "ok")
	got := cl.Value.(ClientToken)
	if got.Secret != f.env.Rotations()[1] {
		t.Error("token.client does not answer the client token the Env holds")
	}
	f.view(t, func(tx *store.Tx) error {
		if got.KeyID != tx.Setting(SettingClientKeyID) {
			t.Errorf("token.client keyid %v, setting %s", got.KeyID, tx.Setting(SettingClientKeyID))
		}
		return nil
	})
}

// A rotation that cannot be kept (the keyring is down) still commits; the
// warning names no secret.
func TestTokenRotateClientKeepFails(t *testing.T) {
	f := newFixture(t)
	f.createClientToken(t)
	f.env.RotateErr = errors.New("keyring unavailable")
	res := f.invoke(OperatorPrincipal(), TransportGUI, "token.rotate", "")
	wantCode(t, res, "ok")
	raw := res.Value.(TokenCreated).Secret
	if _, err := f.authenticate(t, raw); err != nil {
		t.Errorf("rotated token: %v", err)
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "rotated client token could not be kept") {
		t.Errorf("no warning logged: %s", logs)
	}
	if strings.Contains(logs, coretest.SecretOf(t, raw)) {
		t.Error("log contains the new secret")
	}
}

func TestTokenRotateOther(t *testing.T) {
	f := newFixture(t)
	client, _ := f.createClientToken(t)
	exp := f.clock.Now().Add(time.Hour)
	old, oldRaw := f.createToken(t, store.TokenSpec{Label: "sess", Kind: store.KindSession, SessionID: "ses_9", ExpiresAt: &exp,
		Grants: []store.Grant{{Capability: store.CapWorkClaim, Repositories: []string{"repo_a"}}}})

	res := f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", fmt.Sprintf(`{"keyid":%q}`, old.KeyID))
	wantCode(t, res, "ok")
	nt := res.Value.(TokenCreated).Token
	if nt.SessionID != "ses_9" || nt.Kind != store.KindSession || nt.ExpiresAt == nil || !nt.ExpiresAt.Equal(exp) || fmt.Sprint(nt.Grants) != fmt.Sprint(old.Grants) {
		t.Errorf("rotated %+v from %+v", nt, old)
	}
	if _, err := f.authenticate(t, oldRaw); store.CodeOf(err) != store.CodeTokenRevoked {
		t.Errorf("old token: %v", err)
	}
	if n := len(f.env.Rotations()); n != 0 {
		t.Errorf("rotating a non-client token called ClientTokenRotated %d times", n)
	}
	f.view(t, func(tx *store.Tx) error {
		if got := tx.Setting(SettingClientKeyID); got != client.KeyID {
			t.Errorf("client keyid changed to %s", got)
		}
		return nil
	})
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", `{"keyid":"ffffffffffffffff"}`), store.CodeNotFound)
}

// Without a client token recorded, rotate with no key id is not found and
// touches nothing.
func TestTokenRotateNoClient(t *testing.T) {
	f := newFixture(t)
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", ""), store.CodeNotFound)
	// fakeEnv answers "", which the database does not know.
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "token.client", ""), store.CodeNotFound)
	if n := len(f.env.Rotations()); n != 0 {
		t.Errorf("ClientTokenRotated called %d times", n)
	}
	r := New(f.db, Options{}) // the offline Env holds no client token
	wantCode(t, r.Invoke(t.Context(), OperatorPrincipal(), TransportRPC, "token.client", nil), store.CodeNotFound)
}
