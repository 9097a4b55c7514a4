package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// OfflineEnv is the registry's Env for the CLI working directly on the
// database while no Switchboard runs: no listener, and the client token as
// the keyring (or the opt-in file) keeps it.
type OfflineEnv struct {
	Paths   Paths
	Keyring keyring.Keyring
}

var _ mcpserver.Env = OfflineEnv{}

func (e OfflineEnv) Endpoint() string     { return "" }
func (e OfflineEnv) Running() bool        { return false }
func (e OfflineEnv) KeyringState() string { return keyringState(e.Keyring) }

func (e OfflineEnv) stores() []keyring.Keyring {
	return []keyring.Keyring{e.Keyring, keyring.NewFile(e.Paths.tokenFile())}
}

// ClientToken reads the kept client token.
func (e OfflineEnv) ClientToken() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), KeyringTimeout)
	defer cancel()
	for _, kr := range e.stores() {
		raw, err := kr.Get(ctx, KeyringService, keyringUser(e.Paths.Data))
		if err == nil {
			return raw, nil
		}
	}
	return "", errors.New("no client token is kept in the keyring or a token file; start Switchboard to mint one")
}

// ClientTokenRotated keeps the rotated token where the old one was kept.
func (e OfflineEnv) ClientTokenRotated(raw string) error {
	ctx, cancel := context.WithTimeout(context.Background(), KeyringTimeout)
	defer cancel()
	user := keyringUser(e.Paths.Data)
	for _, kr := range e.stores() {
		if _, err := kr.Get(ctx, KeyringService, user); err == nil {
			return kr.Set(ctx, KeyringService, user, raw)
		}
	}
	return fmt.Errorf("the client token was rotated but is kept nowhere: the next start mints another")
}

func keyringState(kr keyring.Keyring) string {
	if s, ok := kr.(interface{ State() string }); ok {
		return s.State()
	}
	return "available"
}
