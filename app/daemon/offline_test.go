package daemon

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

func TestOfflineEnvBasics(t *testing.T) {
	e := OfflineEnv{Paths: newPaths(t), Keyring: keyring.NewMemory()}
	if e.Endpoint() != "" || e.Running() {
		t.Errorf("Endpoint() = %q, Running() = %v; want empty and false", e.Endpoint(), e.Running())
	}
	if got := e.KeyringState(); got != "available" {
		t.Errorf("KeyringState = %q", got)
	}
	if got := (OfflineEnv{Keyring: deadKeyring{}}).KeyringState(); got != "unavailable: test keyring" {
		t.Errorf("KeyringState of a dead keyring = %q", got)
	}
}

func TestOfflineEnvClientTokenFromKeyring(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	e := OfflineEnv{Paths: p, Keyring: kr}
	if _, err := e.ClientToken(); err == nil {
		t.Fatal("ClientToken with nothing kept: want an error")
	}
	if err := e.ClientTokenRotated("sbt_x"); err == nil {
		t.Error("ClientTokenRotated with nothing kept: want an error saying so")
	}
	if _, ok := keyringGet(t, kr, p.Data); ok {
		t.Error("ClientTokenRotated kept a token although none was kept before")
	}

	// What a daemon kept, the offline env reads back.
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	raw := d.clientToken()
	d.stop()
	got, err := e.ClientToken()
	if err != nil || got != raw {
		t.Fatalf("ClientToken = %q, %v; want the daemon's", got, err)
	}

	next, _, _ := store.NewTokenSecret()
	if err := e.ClientTokenRotated(next); err != nil {
		t.Fatal(err)
	}
	if kept, _ := keyringGet(t, kr, p.Data); kept != next {
		t.Error("the keyring does not hold the rotated token")
	}
	if got, _ := e.ClientToken(); got != next {
		t.Error("ClientToken after rotation is not the new token")
	}
	if _, err := os.Stat(p.tokenFile()); !errors.Is(err, os.ErrNotExist) {
		t.Error("rotation wrote a token file although the keyring keeps the token")
	}

	// Another data dir's env does not see this token.
	other := OfflineEnv{Paths: newPaths(t), Keyring: kr}
	if _, err := other.ClientToken(); err == nil {
		t.Error("another data dir read this one's client token")
	}
}

func TestOfflineEnvClientTokenFromFile(t *testing.T) {
	p := newPaths(t)
	d := start(t, Config{Paths: p, Keyring: deadKeyring{}, TokenFile: true, Listen: mcpserver.ListenAddr{Off: true}})
	raw := d.clientToken()
	d.stop()

	e := OfflineEnv{Paths: p, Keyring: deadKeyring{}}
	got, err := e.ClientToken()
	if err != nil || got != raw {
		t.Fatalf("ClientToken = %q, %v; want the one in the token file", got, err)
	}
	next, _, _ := store.NewTokenSecret()
	if err := e.ClientTokenRotated(next); err != nil {
		t.Fatal(err)
	}
	kept, err := keyring.NewFile(p.tokenFile()).Get(context.Background(), KeyringService, keyringUser(p.Data))
	if err != nil || kept != next {
		t.Errorf("token file holds %q, %v; want the rotated token", kept, err)
	}
}

func TestOfflineEnvEphemeralTokenIsNotKept(t *testing.T) {
	p := newPaths(t)
	d := start(t, Config{Paths: p, Keyring: deadKeyring{}, Listen: mcpserver.ListenAddr{Off: true}})
	d.stop()
	if _, err := (OfflineEnv{Paths: p, Keyring: deadKeyring{}}).ClientToken(); err == nil {
		t.Error("ClientToken found a token that was kept nowhere")
	}
}
