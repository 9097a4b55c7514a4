package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// TokenSource says where this run's client token came from; the startup
// line and status repeat it, because a token that silently changes on
// restart breaks every client configured with the old one.
type TokenSource string

const (
	SourceEnv     TokenSource = "environment"
	SourceKeyring TokenSource = "keyring"
	SourceFile    TokenSource = "file"
	SourceMemory  TokenSource = "memory"
)

// KeyringService is the service name of Switchboard's keyring entries.
const KeyringService = "switchboard"

// keyringUser names the client token's entry. It includes a digest of the
// data dir, so two Switchboards with different data dirs (a test and the
// real one) do not overwrite each other's token.
func keyringUser(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "client-token:" + hex.EncodeToString(sum[:6])
}

// clientToken is the outcome of resolveClientToken.
type clientToken struct {
	raw    string
	keyID  string
	source TokenSource
}

// secretStore is the keyring, or the opt-in file standing in for it.
type secretStore struct {
	kr     keyring.Keyring
	user   string
	source TokenSource
}

// resolveClientToken finds this run's client token: SWITCHBOARD_MCP_TOKEN
// when set; else the one kept in the first secret store that answers
// (keyring, then the opt-in file), minting and keeping a new one when it has
// none or its token no longer checks out; else, with nowhere to keep it, one
// minted for this run only.
func resolveClientToken(ctx context.Context, db *store.DB, envToken string, stores []secretStore) (clientToken, error) {
	if envToken != "" {
		keyID, err := importEnvToken(db, envToken)
		if err != nil {
			return clientToken{}, err
		}
		return clientToken{raw: envToken, keyID: keyID, source: SourceEnv}, nil
	}
	for _, s := range stores {
		raw, err := s.kr.Get(ctx, KeyringService, s.user)
		if err == nil {
			if keyID, ok := adoptKept(db, raw); ok {
				return clientToken{raw: raw, keyID: keyID, source: s.source}, nil
			}
		} else if !errors.Is(err, keyring.ErrNotFound) {
			continue // this store does not answer; try the next
		}
		raw, keyID, err := mintClientToken(db, false)
		if err != nil {
			return clientToken{}, err
		}
		if err := s.kr.Set(ctx, KeyringService, s.user, raw); err == nil {
			return clientToken{raw: raw, keyID: keyID, source: s.source}, nil
		}
		// Minted as lasting but kept nowhere: mark it for revocation at the
		// next start like any token minted for one run.
		if err := db.Update(func(tx *store.Tx) error { return tx.MarkEphemeral(keyID) }); err != nil {
			return clientToken{}, err
		}
		return clientToken{raw: raw, keyID: keyID, source: SourceMemory}, nil
	}
	raw, keyID, err := mintClientToken(db, true)
	if err != nil {
		return clientToken{}, err
	}
	return clientToken{raw: raw, keyID: keyID, source: SourceMemory}, nil
}

// importEnvToken makes SWITCHBOARD_MCP_TOKEN this run's client token: a
// malformed, revoked or mismatching value stops startup rather than running
// with a token the user did not mean.
func importEnvToken(db *store.DB, raw string) (string, error) {
	keyID, _, err := store.ParseToken(raw)
	if err != nil {
		return "", fmt.Errorf("SWITCHBOARD_MCP_TOKEN: %w", err)
	}
	err = db.Update(func(tx *store.Tx) error {
		if _, exists, err := tx.Token(keyID); err != nil {
			return err
		} else if exists {
			tok, err := tx.Authenticate(raw)
			if err != nil {
				return fmt.Errorf("SWITCHBOARD_MCP_TOKEN: %w", err)
			}
			// The stdio bridge sends this variable too, so it may hold a
			// session or operator token: made the client token, it would be
			// copied by the tray, be unrevokable, and be revoked by the
			// next mint.
			if tok.Kind != store.KindClient {
				return fmt.Errorf("SWITCHBOARD_MCP_TOKEN: %w", store.Deny(store.CodeInvalidArgument,
					"token %s is a %s token, not a client token", keyID, tok.Kind))
			}
		} else if _, err := tx.ImportToken(clientSpec(false), raw); err != nil {
			return fmt.Errorf("SWITCHBOARD_MCP_TOKEN: %w", err)
		}
		return tx.SetSetting(mcpserver.SettingClientKeyID, keyID)
	})
	return keyID, err
}

// adoptKept checks a token read from the keyring against the database; a
// database that was reset no longer knows it.
func adoptKept(db *store.DB, raw string) (string, bool) {
	var keyID string
	err := db.Update(func(tx *store.Tx) error {
		tok, err := tx.Authenticate(raw)
		if err != nil {
			return err
		}
		keyID = tok.KeyID
		return tx.SetSetting(mcpserver.SettingClientKeyID, keyID)
	})
	return keyID, err == nil
}

func clientSpec(ephemeral bool) store.TokenSpec {
	var grants []store.Grant
	for _, c := range store.AgentCapabilities() {
		grants = append(grants, store.Grant{Capability: c, Repositories: []string{store.AllRepositories}})
	}
	label := "client"
	if ephemeral {
		label = "client (this run only)"
	}
	return store.TokenSpec{Label: label, Kind: store.KindClient, Grants: grants, Ephemeral: ephemeral}
}

// mintClientToken revokes the previous client token and makes a new one. A
// previous token imported from SWITCHBOARD_MCP_TOKEN stays valid: its owner
// may set the variable again on the next start.
func mintClientToken(db *store.DB, ephemeral bool) (raw, keyID string, err error) {
	err = db.Update(func(tx *store.Tx) error {
		if old, ok, err := tx.Token(tx.Setting(mcpserver.SettingClientKeyID)); err != nil {
			return err
		} else if ok && !old.Imported {
			if _, err := tx.RevokeToken(old.KeyID); err != nil {
				return err
			}
		}
		tok, r, err := tx.CreateToken(clientSpec(ephemeral))
		if err != nil {
			return err
		}
		raw, keyID = r, tok.KeyID
		return tx.SetSetting(mcpserver.SettingClientKeyID, keyID)
	})
	return raw, keyID, err
}

// revokeStaleEphemeral revokes client tokens minted for earlier runs: their
// secrets died with those runs, so nobody can hold them legitimately.
func revokeStaleEphemeral(db *store.DB, keep string) error {
	return db.Update(func(tx *store.Tx) error {
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		for _, t := range toks {
			if t.Ephemeral && t.RevokedAt == nil && t.KeyID != keep {
				if _, err := tx.RevokeToken(t.KeyID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
