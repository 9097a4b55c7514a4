package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// deadKeyring is an OS keyring that never answers: every call fails with
// ErrUnavailable, as System does after its timeout.
type deadKeyring struct{}

var _ keyring.Keyring = deadKeyring{}

func (deadKeyring) Get(_ context.Context, service, user string) (string, error) {
	return "", fmt.Errorf("test keyring get %s/%s: %w", service, user, keyring.ErrUnavailable)
}

func (deadKeyring) Set(_ context.Context, service, user, _ string) error {
	return fmt.Errorf("test keyring set %s/%s: %w", service, user, keyring.ErrUnavailable)
}

func (deadKeyring) Delete(_ context.Context, service, user string) error {
	return fmt.Errorf("test keyring delete %s/%s: %w", service, user, keyring.ErrUnavailable)
}

func (deadKeyring) State() string { return "unavailable: test keyring" }

// shortDir returns a fresh folder with a short path: a Unix socket path must
// fit in 108 bytes, which t.TempDir() under a long test name may not.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// newPaths returns data and runtime folders (not yet created) in a short
// temporary folder.
func newPaths(t *testing.T) Paths {
	t.Helper()
	dir := shortDir(t)
	return Paths{Data: filepath.Join(dir, "data"), Runtime: filepath.Join(dir, "run")}
}

// running is a started Daemon that the test closes once, explicitly or at
// cleanup.
type running struct {
	*Daemon
	t      *testing.T
	closed bool
}

// start starts a daemon and fails the test if it does not start.
func start(t *testing.T, cfg Config) *running {
	t.Helper()
	d, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	r := &running{Daemon: d, t: t}
	t.Cleanup(func() { r.stop() })
	return r
}

// stop closes the daemon (once).
func (r *running) stop() {
	r.t.Helper()
	if r.closed {
		return
	}
	r.closed = true
	if err := r.Close(context.Background()); err != nil {
		r.t.Errorf("Close: %v", err)
	}
}

// clientToken returns the daemon's raw client token.
func (r *running) clientToken() string {
	r.t.Helper()
	raw, err := r.ClientToken()
	if err != nil || raw == "" {
		r.t.Fatalf("ClientToken() = %q, %v", raw, err)
	}
	return raw
}

// authenticate checks raw against the running daemon's database and returns
// the token and the denial code ("" when it authenticates).
func (r *running) authenticate(raw string) (store.Token, store.Code) {
	r.t.Helper()
	var tok store.Token
	err := r.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		var err error
		tok, err = tx.Authenticate(raw)
		return err
	})
	if err != nil && store.CodeOf(err) == store.CodeInternal {
		r.t.Fatalf("Authenticate: %v", err)
	}
	return tok, store.CodeOf(err)
}

// clientKeyID is the key id the database records as the client token's.
func (r *running) clientKeyID() string {
	r.t.Helper()
	var id string
	r.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		id = tx.Setting(mcpserver.SettingClientKeyID)
		return nil
	})
	return id
}

// mustAuthenticate fails the test unless raw is a live client token that
// the database records as the client token.
func (r *running) mustAuthenticate(raw string) store.Token {
	r.t.Helper()
	tok, code := r.authenticate(raw)
	if code != "" {
		r.t.Fatalf("client token does not authenticate: %s", code)
	}
	if tok.Kind != store.KindClient {
		r.t.Errorf("client token kind = %q, want %q", tok.Kind, store.KindClient)
	}
	if got := r.clientKeyID(); got != tok.KeyID {
		r.t.Errorf("client_keyid setting = %q, want %q", got, tok.KeyID)
	}
	return tok
}

// keyringGet reads the client token entry for data dir data.
func keyringGet(t *testing.T, kr keyring.Keyring, data string) (string, bool) {
	t.Helper()
	raw, err := kr.Get(context.Background(), KeyringService, keyringUser(data))
	if errors.Is(err, keyring.ErrNotFound) {
		return "", false
	}
	if err != nil {
		t.Fatalf("keyring Get: %v", err)
	}
	return raw, true
}

// perm returns the permission bits of path.
func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
