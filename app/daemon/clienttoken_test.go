package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

func TestKeyringUserDependsOnDataDir(t *testing.T) {
	a, b := keyringUser("/a/switchboard"), keyringUser("/b/switchboard")
	if a == b {
		t.Fatalf("two data dirs share the keyring entry %q", a)
	}
	if a != keyringUser("/a/switchboard") {
		t.Error("keyringUser is not deterministic")
	}
	if !strings.HasPrefix(a, "client-token:") || strings.Contains(a, "/a/") {
		t.Errorf("keyringUser = %q: want a digest, not the path", a)
	}
}

func TestClientTokenMintedIntoEmptyKeyring(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if d.TokenSource() != SourceKeyring {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceKeyring)
	}
	raw := d.clientToken()
	if _, _, err := store.ParseToken(raw); err != nil {
		t.Fatalf("client token is malformed: %v", err)
	}
	if kept, ok := keyringGet(t, kr, p.Data); !ok || kept != raw {
		t.Errorf("keyring holds %q (found %v), want the client token", kept, ok)
	}
	tok := d.mustAuthenticate(raw)
	if tok.Ephemeral {
		t.Error("a token kept in the keyring must not be ephemeral")
	}
	if len(tok.Grants) != len(store.AgentCapabilities()) {
		t.Errorf("client token grants = %+v, want every agent capability", tok.Grants)
	}
	for _, g := range tok.Grants {
		if len(g.Repositories) != 1 || g.Repositories[0] != store.AllRepositories || g.Capability == store.CapAdmin || g.Capability == store.CapWorkAuthor {
			t.Errorf("client token grant %+v: want an agent capability on all repositories", g)
		}
	}
	// The secret never lands in the database file.
	d.stop()
	db, err := os.ReadFile(p.DB())
	if err != nil {
		t.Fatal(err)
	}
	_, secret, _ := store.ParseToken(raw)
	if strings.Contains(string(db), secret) {
		t.Error("state.db contains the client token's secret")
	}
}

func TestClientTokenStableAcrossRestarts(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	first := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	raw := first.clientToken()
	first.stop()

	for i := range 2 {
		d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
		if got := d.clientToken(); got != raw {
			t.Fatalf("restart %d: client token changed", i+1)
		}
		if d.TokenSource() != SourceKeyring {
			t.Errorf("restart %d: TokenSource = %q", i+1, d.TokenSource())
		}
		d.mustAuthenticate(raw)
		d.stop()
	}
}

func TestClientTokenUnknownToDatabaseIsReplaced(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	// The keyring remembers a token from a database that was since deleted.
	stale, _, _ := store.NewTokenSecret()
	if err := kr.Set(context.Background(), KeyringService, keyringUser(p.Data), stale); err != nil {
		t.Fatal(err)
	}
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	raw := d.clientToken()
	if raw == stale {
		t.Fatal("adopted a token the database does not know")
	}
	if d.TokenSource() != SourceKeyring {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceKeyring)
	}
	if kept, _ := keyringGet(t, kr, p.Data); kept != raw {
		t.Error("the new token was not kept in the keyring")
	}
	d.mustAuthenticate(raw)
	if _, code := d.authenticate(stale); code != store.CodeTokenInvalid {
		t.Errorf("stale keyring token authenticates with %q, want %q", code, store.CodeTokenInvalid)
	}
	d.stop()

	// Deleting the database (same data dir) has the same effect.
	if err := os.Remove(p.DB()); err != nil {
		t.Fatal(err)
	}
	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if got := d.clientToken(); got == raw {
		t.Fatal("kept a token that the new database does not know")
	}
	d.mustAuthenticate(d.clientToken())
}

func TestClientTokenRevokedInKeyringIsReplaced(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	old := d.clientToken()
	oldID := d.clientKeyID()
	if err := d.Registry().DB().Update(context.Background(), func(tx *store.Tx) error { _, err := tx.RevokeToken(oldID); return err }); err != nil {
		t.Fatal(err)
	}
	d.stop()

	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	raw := d.clientToken()
	if raw == old {
		t.Fatal("adopted a revoked token from the keyring")
	}
	d.mustAuthenticate(raw)
	if kept, _ := keyringGet(t, kr, p.Data); kept != raw {
		t.Error("the replacement was not kept in the keyring")
	}
}

func TestClientTokenUnavailableKeyringIsEphemeral(t *testing.T) {
	p := newPaths(t)
	d := start(t, Config{Paths: p, Keyring: deadKeyring{}, Listen: mcpserver.ListenAddr{Off: true}})
	if d.TokenSource() != SourceMemory {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceMemory)
	}
	raw := d.clientToken()
	tok := d.mustAuthenticate(raw)
	if !tok.Ephemeral {
		t.Error("a token kept nowhere must be marked ephemeral")
	}
	if _, err := os.Stat(p.tokenFile()); !os.IsNotExist(err) {
		t.Errorf("a token file was written without the opt-in: %v", err)
	}
	d.stop()

	// The next start revokes it: nobody can hold its secret legitimately.
	d = start(t, Config{Paths: p, Keyring: deadKeyring{}, Listen: mcpserver.ListenAddr{Off: true}})
	if _, code := d.authenticate(raw); code != store.CodeTokenRevoked {
		t.Errorf("last run's ephemeral token: Authenticate gives %q, want %q", code, store.CodeTokenRevoked)
	}
	next := d.clientToken()
	if next == raw {
		t.Fatal("the ephemeral token survived a restart")
	}
	d.mustAuthenticate(next)
	d.stop()

	// Also when the keyring is back: its token is a new, lasting one.
	kr := keyring.NewMemory()
	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if _, code := d.authenticate(next); code != store.CodeTokenRevoked {
		t.Errorf("ephemeral token after the keyring came back: %q, want %q", code, store.CodeTokenRevoked)
	}
	if d.TokenSource() != SourceKeyring {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceKeyring)
	}
	if tok := d.mustAuthenticate(d.clientToken()); tok.Ephemeral {
		t.Error("a token kept in the keyring must not be ephemeral")
	}
}

// setOnlyFails is a keyring that reads (finds nothing) but cannot write.
type setOnlyFails struct{ keyring.Memory }

func (s *setOnlyFails) Set(context.Context, string, string, string) error {
	return keyring.ErrUnavailable
}

func TestClientTokenKeyringThatCannotWrite(t *testing.T) {
	p := newPaths(t)
	d := start(t, Config{Paths: p, Keyring: &setOnlyFails{}, Listen: mcpserver.ListenAddr{Off: true}})
	if d.TokenSource() != SourceMemory {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceMemory)
	}
	raw := d.clientToken()
	if tok := d.mustAuthenticate(raw); !tok.Ephemeral {
		t.Error("a token the keyring did not take must be ephemeral")
	}
	d.stop()
	d = start(t, Config{Paths: p, Keyring: &setOnlyFails{}, Listen: mcpserver.ListenAddr{Off: true}})
	if _, code := d.authenticate(raw); code != store.CodeTokenRevoked {
		t.Errorf("Authenticate = %q, want %q", code, store.CodeTokenRevoked)
	}
}

func TestClientTokenFileOptIn(t *testing.T) {
	p := newPaths(t)
	cfg := Config{Paths: p, Keyring: deadKeyring{}, TokenFile: true, Listen: mcpserver.ListenAddr{Off: true}}
	d := start(t, cfg)
	if d.TokenSource() != SourceFile {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceFile)
	}
	raw := d.clientToken()
	if tok := d.mustAuthenticate(raw); tok.Ephemeral {
		t.Error("a token kept in the opt-in file must not be ephemeral")
	}
	file := p.tokenFile()
	if filepath.Dir(file) != p.Data {
		t.Errorf("token file %s is not in the data dir %s", file, p.Data)
	}
	if runtime.GOOS != "windows" {
		if got := perm(t, file); got != 0o600 {
			t.Errorf("token file mode %#o, want 0600", got)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), raw) {
		t.Fatalf("token file does not hold the client token (err %v)", err)
	}
	if lines := strings.Join(d.StartupLines(false), "\n"); !strings.Contains(lines, file) || !strings.Contains(lines, "WARNING") {
		t.Errorf("StartupLines do not name the token file with a warning:\n%s", lines)
	}
	d.stop()

	d = start(t, cfg)
	if got := d.clientToken(); got != raw {
		t.Fatal("the token kept in the file changed on restart")
	}
	if d.TokenSource() != SourceFile {
		t.Errorf("restart: TokenSource = %q, want %q", d.TokenSource(), SourceFile)
	}
	d.mustAuthenticate(raw)

	// The opt-in is only a fallback: a keyring that answers comes first.
	d.stop()
	kr := keyring.NewMemory()
	d = start(t, Config{Paths: p, Keyring: kr, TokenFile: true, Listen: mcpserver.ListenAddr{Off: true}})
	if d.TokenSource() != SourceKeyring {
		t.Errorf("with a working keyring: TokenSource = %q, want %q", d.TokenSource(), SourceKeyring)
	}
}

func TestClientTokenFromEnvironment(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	envTok, keyID, _ := store.NewTokenSecret()
	d := start(t, Config{Paths: p, Keyring: kr, EnvToken: envTok, Listen: mcpserver.ListenAddr{Off: true}})
	if d.TokenSource() != SourceEnv {
		t.Errorf("TokenSource = %q, want %q", d.TokenSource(), SourceEnv)
	}
	if got := d.clientToken(); got != envTok {
		t.Fatal("ClientToken is not SWITCHBOARD_MCP_TOKEN")
	}
	if tok := d.mustAuthenticate(envTok); tok.KeyID != keyID {
		t.Errorf("imported key id %q, want %q", tok.KeyID, keyID)
	}
	if _, ok := keyringGet(t, kr, p.Data); ok {
		t.Error("the environment's token was written to the keyring")
	}
	if lines := strings.Join(d.StartupLines(false), "\n"); !strings.Contains(lines, "SWITCHBOARD_MCP_TOKEN") || strings.Contains(lines, envTok) {
		t.Errorf("StartupLines:\n%s", lines)
	}
	d.stop()

	// The same value again is known now, and still accepted.
	d = start(t, Config{Paths: p, Keyring: kr, EnvToken: envTok, Listen: mcpserver.ListenAddr{Off: true}})
	if got := d.clientToken(); got != envTok {
		t.Fatal("second start: ClientToken is not SWITCHBOARD_MCP_TOKEN")
	}
	d.mustAuthenticate(envTok)
}

func TestClientTokenFromEnvironmentRefused(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	known, _, _ := store.NewTokenSecret()
	d := start(t, Config{Paths: p, Keyring: kr, EnvToken: known, Listen: mcpserver.ListenAddr{Off: true}})
	id := d.clientKeyID()
	d.stop()

	valid, _, _ := store.NewTokenSecret()
	wrongSecret := "sbt_" + id + "_" + strings.Repeat("A", 43)
	for _, c := range []struct {
		name, value string
		code        store.Code
	}{
		{"no prefix", "not-a-token-at-all-" + strings.Repeat("x", 20), store.CodeTokenMalformed},
		{"short secret", valid[:len(valid)-1], store.CodeTokenMalformed},
		{"upper-case key id", "sbt_" + strings.ToUpper(valid[4:20]) + valid[20:], store.CodeTokenMalformed},
		{"known key id, wrong secret", wrongSecret, store.CodeTokenInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Start(context.Background(), Config{Paths: p, Keyring: kr, EnvToken: c.value, Listen: mcpserver.ListenAddr{Off: true}})
			if err == nil {
				t.Fatal("Start accepted a bad SWITCHBOARD_MCP_TOKEN")
			}
			if got := store.CodeOf(err); got != c.code {
				t.Errorf("error code %q, want %q (%v)", got, c.code, err)
			}
			if !strings.Contains(err.Error(), "SWITCHBOARD_MCP_TOKEN") {
				t.Errorf("error does not name SWITCHBOARD_MCP_TOKEN: %v", err)
			}
			if strings.Contains(err.Error(), c.value) || strings.Contains(err.Error(), c.value[min(len(c.value), 21):]) {
				t.Errorf("error repeats the token: %v", err)
			}
		})
	}

	// A revoked token is refused too.
	d = start(t, Config{Paths: p, Keyring: kr, EnvToken: known, Listen: mcpserver.ListenAddr{Off: true}})
	if err := d.Registry().DB().Update(context.Background(), func(tx *store.Tx) error { _, err := tx.RevokeToken(id); return err }); err != nil {
		t.Fatal(err)
	}
	d.stop()
	_, err := Start(context.Background(), Config{Paths: p, Keyring: kr, EnvToken: known, Listen: mcpserver.ListenAddr{Off: true}})
	if store.CodeOf(err) != store.CodeTokenRevoked {
		t.Errorf("Start with a revoked SWITCHBOARD_MCP_TOKEN: %v, want %s", err, store.CodeTokenRevoked)
	}

	// Every failed Start let go of the database and the runtime files.
	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	d.mustAuthenticate(d.clientToken())
}

func TestClientTokensOfTwoDataDirsShareOneKeyring(t *testing.T) {
	kr := keyring.NewMemory()
	pa, pb := newPaths(t), newPaths(t)
	a := start(t, Config{Paths: pa, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	b := start(t, Config{Paths: pb, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	ta, tb := a.clientToken(), b.clientToken()
	if ta == tb {
		t.Fatal("two data dirs got the same client token")
	}
	a.mustAuthenticate(ta)
	b.mustAuthenticate(tb)
	a.stop()
	b.stop()

	a = start(t, Config{Paths: pa, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	b = start(t, Config{Paths: pb, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if a.clientToken() != ta || b.clientToken() != tb {
		t.Error("one data dir's start overwrote the other's client token")
	}
}

func TestClientTokenFromEnvironmentMustBeAClientToken(t *testing.T) {
	// SWITCHBOARD_MCP_TOKEN is also what the stdio bridge sends, so it may
	// hold a session or operator token. Adopting one as the client token
	// would hand the tray a narrower token (or one revoked when its session
	// ends), refuse to revoke it, and revoke it at a later mint.
	p, kr := newPaths(t), keyring.NewMemory()
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	client := d.clientToken()
	var narrow string
	err := d.Registry().DB().Update(context.Background(), func(tx *store.Tx) error {
		_, raw, err := tx.CreateToken(store.TokenSpec{Label: "script", Kind: store.KindOperator,
			Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{store.AllRepositories}}}})
		narrow = raw
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	d.stop()

	_, err = Start(context.Background(), Config{Paths: p, Keyring: kr, EnvToken: narrow, Listen: mcpserver.ListenAddr{Off: true}})
	if err == nil {
		t.Fatal("Start adopted an operator token as the client token")
	}
	if !strings.Contains(err.Error(), "SWITCHBOARD_MCP_TOKEN") || strings.Contains(err.Error(), narrow) {
		t.Errorf("error: %v", err)
	}
	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if d.clientToken() != client {
		t.Error("the refused start changed the client token")
	}
	if _, code := d.authenticate(narrow); code != "" {
		t.Errorf("the operator token no longer authenticates: %s", code)
	}
}

// TestEnvTokenSurvivesARunWithoutIt: a run without SWITCHBOARD_MCP_TOKEN
// mints its own client token but leaves the imported one valid, so setting
// the variable again on the next start still works.
func TestEnvTokenSurvivesARunWithoutIt(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := mcpserver.New(db, mcpserver.Options{})
	raw, _, _ := store.NewTokenSecret()
	if _, err := resolveClientToken(context.Background(), reg, raw, nil); err != nil {
		t.Fatal(err)
	}
	kr := keyring.NewMemory()
	own, err := resolveClientToken(context.Background(), reg, "", []secretStore{{kr: kr, user: "u", source: SourceKeyring}})
	if err != nil || own.raw == raw {
		t.Fatalf("run without the variable: %v", err)
	}
	again, err := resolveClientToken(context.Background(), reg, raw, nil)
	if err != nil || again.raw != raw || again.source != SourceEnv {
		t.Fatalf("the imported token was retired by a run without it: %v", err)
	}
}
