package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/store"
)

// startup calls name as the daemon does while it starts.
func startup[In, Out any](f *fixture, name Name[In, Out], in In) (Out, error) {
	return Invoke(context.Background(), f.reg, OperatorPrincipal(), TransportStartup, name, in)
}

// clientKeyID is the key id the database records as the client token's.
func (f *fixture) clientKeyID(t testing.TB) string {
	t.Helper()
	var id string
	f.view(t, func(tx *store.Tx) error { id = tx.Setting(SettingClientKeyID); return nil })
	return id
}

// mustAuthenticate fails the test unless raw authenticates.
func (f *fixture) mustAuthenticate(t testing.TB, raw string) store.Token {
	t.Helper()
	tok, err := f.authenticate(t, raw)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	return tok
}

// noSecretsIn fails the test when any audit record or log line holds a raw
// token of raws or its secret part.
func noSecretsIn(t *testing.T, f *fixture, raws ...string) {
	t.Helper()
	recs, err := json.Marshal(f.audit(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		secret := coretest.SecretOf(t, raw)
		for what, text := range map[string]string{"the audit log": string(recs), "the log": f.logs.String()} {
			if strings.Contains(text, raw) || strings.Contains(text, secret) {
				t.Errorf("%s holds a token secret", what)
			}
		}
	}
}

// The startup methods assume nothing is served yet, so the operator's
// socket and the GUI are refused like MCP is, and nothing changes.
func TestStartupMethodsRefuseOtherTransports(t *testing.T) {
	f := newFixture(t)
	client, raw := f.createClientToken(t)
	_, agentRaw := f.createToken(t, store.TokenSpec{Kind: store.KindSession, Grants: allGrants()})
	calls := map[string]string{
		string(MethodTokenRevokeStaleEphemeral): `{}`,
		string(MethodClientTokenImport):         fmt.Sprintf(`{"token":%q}`, raw),
		string(MethodClientTokenAdopt):          fmt.Sprintf(`{"token":%q}`, raw),
		string(MethodClientTokenMint):           `{}`,
		string(MethodClientTokenMarkEphemeral):  fmt.Sprintf(`{"keyid":%q}`, client.KeyID),
		string(MethodConnectionRememberPort):    `{"port":8123}`,
	}
	agent := f.mustAuthenticate(t, agentRaw)
	for method, args := range calls {
		m, ok := f.reg.Lookup(method)
		if !ok {
			t.Fatalf("%s is not registered", method)
		}
		if m.Capability != store.CapAdmin || m.Object != Global || m.Flags&(Hidden|Internal) != Hidden|Internal {
			t.Errorf("%s: %s on %s, flags %b; want admin on global, Hidden|Internal", method, m.Capability, m.Object, m.Flags)
		}
		for _, c := range []struct {
			p  Principal
			tr Transport
		}{{OperatorPrincipal(), TransportRPC}, {OperatorPrincipal(), TransportGUI}, {OperatorPrincipal(), TransportSupervisor}, {TokenPrincipal(agent), TransportMCP}} {
			wantCode(t, f.invoke(c.p, c.tr, method, args), store.CodeToolHidden)
		}
	}
	if got := f.clientKeyID(t); got != client.KeyID {
		t.Errorf("a refused call changed the client token to %s", got)
	}
	if tok := f.token(t, client.KeyID); tok.RevokedAt != nil || tok.Ephemeral {
		t.Errorf("a refused call changed the client token: %+v", tok)
	}
	f.view(t, func(tx *store.Tx) error {
		if p := tx.Setting(SettingHTTPPort); p != "" {
			t.Errorf("a refused call remembered port %q", p)
		}
		return nil
	})
	noSecretsIn(t, f, raw, agentRaw)
}

// A mint retires the previous client token, unless it was imported, and
// its secret reaches the caller and no record.
func TestStartupClientTokenMint(t *testing.T) {
	f := newFixture(t)
	first, err := startup(f, MethodClientTokenMint, ClientTokenMintArgs{})
	if err != nil {
		t.Fatal(err)
	}
	tok := f.mustAuthenticate(t, first.Secret)
	if tok.KeyID != first.KeyID || tok.Kind != store.KindClient || tok.Ephemeral || f.clientKeyID(t) != first.KeyID {
		t.Errorf("first mint: %+v, client key id %s", tok, f.clientKeyID(t))
	}
	second, err := startup(f, MethodClientTokenMint, ClientTokenMintArgs{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.authenticate(t, first.Secret); store.CodeOf(err) != store.CodeTokenRevoked {
		t.Errorf("the previous client token after a mint: %v, want token_revoked", err)
	}
	if tok := f.mustAuthenticate(t, second.Secret); !tok.Ephemeral || f.clientKeyID(t) != second.KeyID {
		t.Errorf("ephemeral mint: %+v, client key id %s", tok, f.clientKeyID(t))
	}

	imported, _, _ := store.NewTokenSecret()
	if _, err := startup(f, MethodClientTokenImport, RawToken{Token: imported}); err != nil {
		t.Fatal(err)
	}
	third, err := startup(f, MethodClientTokenMint, ClientTokenMintArgs{})
	if err != nil {
		t.Fatal(err)
	}
	f.mustAuthenticate(t, imported)
	if f.clientKeyID(t) != third.KeyID {
		t.Errorf("client key id %s, want the last mint's %s", f.clientKeyID(t), third.KeyID)
	}
	noSecretsIn(t, f, first.Secret, second.Secret, third.Secret, imported)
}

// An import takes an unknown token, accepts a known client token and
// refuses any other known one without changing the client token; a
// refusal's text names the key id, never the secret.
func TestStartupClientTokenImport(t *testing.T) {
	f := newFixture(t)
	fresh, keyID, _ := store.NewTokenSecret()
	got, err := startup(f, MethodClientTokenImport, RawToken{Token: fresh})
	if err != nil || got.KeyID != keyID || f.clientKeyID(t) != keyID {
		t.Fatalf("import = %+v, %v; client key id %s, want %s", got, err, f.clientKeyID(t), keyID)
	}
	if tok := f.mustAuthenticate(t, fresh); !tok.Imported || tok.Kind != store.KindClient {
		t.Errorf("imported token: %+v", tok)
	}
	if got, err := startup(f, MethodClientTokenImport, RawToken{Token: fresh}); err != nil || got.KeyID != keyID {
		t.Errorf("import of the known client token: %+v, %v", got, err)
	}

	_, operator := f.createToken(t, store.TokenSpec{Kind: store.KindOperator, Grants: allGrants()})
	_, _, badSecret := store.NewTokenSecret()
	wrong := "sbt_" + keyID + "_" + strings.Repeat("A", len(badSecret))
	for _, c := range []struct {
		name, raw string
		code      store.Code
	}{
		{"operator token", operator, store.CodeInvalidArgument},
		{"wrong secret", wrong, store.CodeTokenInvalid},
		{"malformed", "sbt_nothex_" + badSecret, store.CodeTokenMalformed},
	} {
		_, err := startup(f, MethodClientTokenImport, RawToken{Token: c.raw})
		if store.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
		if err != nil && strings.Contains(err.Error(), c.raw[min(len(c.raw), len("sbt_")+16+1):]) {
			t.Errorf("%s: the error repeats the secret: %v", c.name, err)
		}
	}
	if f.clientKeyID(t) != keyID {
		t.Errorf("a refused import changed the client token to %s", f.clientKeyID(t))
	}
	noSecretsIn(t, f, fresh, operator, wrong)
	// A digest of arguments that hold a token would confirm a guess of it.
	for _, rec := range f.audit(t) {
		if (rec.Method == string(MethodClientTokenImport) || rec.Method == string(MethodClientTokenAdopt)) && rec.ArgsDigest != "" {
			t.Errorf("%s's audit record keeps a digest of its arguments: %+v", rec.Method, rec)
		}
	}
}

// Adopting checks the kept token against the database: a live one becomes
// the client token, a revoked or unknown one is refused.
func TestStartupClientTokenAdopt(t *testing.T) {
	f := newFixture(t)
	kept, raw := f.createToken(t, store.TokenSpec{Label: "client", Kind: store.KindClient, Grants: allGrants()})
	if got, err := startup(f, MethodClientTokenAdopt, RawToken{Token: raw}); err != nil || got.KeyID != kept.KeyID || f.clientKeyID(t) != kept.KeyID {
		t.Fatalf("adopt = %+v, %v; client key id %s", got, err, f.clientKeyID(t))
	}
	unknown, _, _ := store.NewTokenSecret()
	if _, err := startup(f, MethodClientTokenAdopt, RawToken{Token: unknown}); store.CodeOf(err) != store.CodeTokenInvalid {
		t.Errorf("adopt of an unknown token: %v, want token_invalid", err)
	}
	f.update(t, func(tx *store.Tx) error { _, err := tx.RevokeToken(kept.KeyID); return err })
	if _, err := startup(f, MethodClientTokenAdopt, RawToken{Token: raw}); store.CodeOf(err) != store.CodeTokenRevoked {
		t.Errorf("adopt of a revoked token: %v, want token_revoked", err)
	}
	noSecretsIn(t, f, raw, unknown)
}

// Only the client token is marked ephemeral, and the next start's sweep
// revokes the ephemeral tokens and nothing else.
func TestStartupEphemeralTokens(t *testing.T) {
	f := newFixture(t)
	other, _ := f.createToken(t, store.TokenSpec{Kind: store.KindOperator, Grants: allGrants()})
	minted, err := startup(f, MethodClientTokenMint, ClientTokenMintArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{other.KeyID, "", "0123456789abcdef"} {
		if _, err := startup(f, MethodClientTokenMarkEphemeral, KeyIDArg{KeyID: id}); store.CodeOf(err) != store.CodeInvalidArgument {
			t.Errorf("mark %q ephemeral: %v, want invalid_argument", id, err)
		}
	}
	if _, err := startup(f, MethodClientTokenMarkEphemeral, KeyIDArg{KeyID: minted.KeyID}); err != nil {
		t.Fatal(err)
	}
	if !f.token(t, minted.KeyID).Ephemeral || f.token(t, other.KeyID).Ephemeral {
		t.Error("mark_ephemeral marked the wrong token")
	}
	swept, err := startup(f, MethodTokenRevokeStaleEphemeral, NoArgs{})
	if err != nil || len(swept.KeyIDs) != 1 || swept.KeyIDs[0] != minted.KeyID {
		t.Fatalf("revoke_stale_ephemeral = %+v, %v; want [%s]", swept, err, minted.KeyID)
	}
	if f.token(t, minted.KeyID).RevokedAt == nil || f.token(t, other.KeyID).RevokedAt != nil {
		t.Error("revoke_stale_ephemeral revoked the wrong tokens")
	}
	if swept, err := startup(f, MethodTokenRevokeStaleEphemeral, NoArgs{}); err != nil || len(swept.KeyIDs) != 0 {
		t.Errorf("second sweep = %+v, %v; want nothing revoked", swept, err)
	}
}

func TestStartupRememberPort(t *testing.T) {
	f := newFixture(t)
	for _, port := range []int{0, -1, 65536} {
		if _, err := startup(f, MethodConnectionRememberPort, RememberPortArgs{Port: port}); store.CodeOf(err) != store.CodeInvalidArgument {
			t.Errorf("port %d: %v, want invalid_argument", port, err)
		}
	}
	if _, err := startup(f, MethodConnectionRememberPort, RememberPortArgs{Port: 8123}); err != nil {
		t.Fatal(err)
	}
	f.view(t, func(tx *store.Tx) error {
		if got := tx.Setting(SettingHTTPPort); got != "8123" {
			t.Errorf("remembered port %q, want 8123", got)
		}
		return nil
	})
	recs := f.audit(t)
	last := recs[len(recs)-1]
	if last.Method != string(MethodConnectionRememberPort) || last.Transport != string(TransportStartup) || last.Outcome != "ok" || last.KeyID != "" {
		t.Errorf("last audit record %+v, want connection.remember_port over startup, ok, as the operator", last)
	}
}
