package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
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
// minted for this run only. Every write is a registry call (startupCall).
func resolveClientToken(ctx context.Context, reg *mcpserver.Registry, envToken string, stores []secretStore) (clientToken, error) {
	if envToken != "" {
		keyID, err := importEnvToken(ctx, reg, envToken)
		if err != nil {
			return clientToken{}, err
		}
		return clientToken{raw: envToken, keyID: keyID, source: SourceEnv}, nil
	}
	for _, s := range stores {
		raw, err := s.kr.Get(ctx, KeyringService, s.user)
		if err == nil {
			if keyID, ok := adoptKept(ctx, reg, raw); ok {
				return clientToken{raw: raw, keyID: keyID, source: s.source}, nil
			}
		} else if !errors.Is(err, keyring.ErrNotFound) {
			continue // this store does not answer; try the next
		}
		minted, err := mintClientToken(ctx, reg, false)
		if err != nil {
			return clientToken{}, err
		}
		if err := s.kr.Set(ctx, KeyringService, s.user, minted.Secret); err == nil {
			return clientToken{raw: minted.Secret, keyID: minted.KeyID, source: s.source}, nil
		}
		// Minted as lasting but kept nowhere: mark it for revocation at the
		// next start like any token minted for one run.
		if _, err := startupCall(ctx, reg, mcpserver.MethodClientTokenMarkEphemeral, mcpserver.KeyIDArg{KeyID: minted.KeyID}); err != nil {
			return clientToken{}, fmt.Errorf("mark the client token %s as kept nowhere: %w", minted.KeyID, err)
		}
		return clientToken{raw: minted.Secret, keyID: minted.KeyID, source: SourceMemory}, nil
	}
	minted, err := mintClientToken(ctx, reg, true)
	if err != nil {
		return clientToken{}, err
	}
	return clientToken{raw: minted.Secret, keyID: minted.KeyID, source: SourceMemory}, nil
}

// startupCall makes one of the daemon's own writes while it starts: a
// registry call as the operator over the startup transport, audited like
// any other.
func startupCall[In, Out any](ctx context.Context, reg *mcpserver.Registry, name mcpserver.Name[In, Out], in In) (Out, error) {
	return mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportStartup, name, in)
}

// importEnvToken makes SWITCHBOARD_MCP_TOKEN this run's client token: a
// malformed, revoked or mismatching value stops startup rather than running
// with a token the user did not mean. The error names the variable, never
// its value.
func importEnvToken(ctx context.Context, reg *mcpserver.Registry, raw string) (string, error) {
	res, err := startupCall(ctx, reg, mcpserver.MethodClientTokenImport, mcpserver.RawToken{Token: raw})
	if err != nil {
		return "", fmt.Errorf("SWITCHBOARD_MCP_TOKEN: %w", err)
	}
	return res.KeyID, nil
}

// adoptKept checks a token read from the keyring against the database; a
// database that was reset no longer knows it. The refusal is in the audit
// log; the caller mints another token either way.
func adoptKept(ctx context.Context, reg *mcpserver.Registry, raw string) (string, bool) {
	res, err := startupCall(ctx, reg, mcpserver.MethodClientTokenAdopt, mcpserver.RawToken{Token: raw})
	return res.KeyID, err == nil
}

// mintClientToken revokes the previous client token and makes a new one. A
// previous token imported from SWITCHBOARD_MCP_TOKEN stays valid: its owner
// may set the variable again on the next start.
func mintClientToken(ctx context.Context, reg *mcpserver.Registry, ephemeral bool) (mcpserver.ClientToken, error) {
	minted, err := startupCall(ctx, reg, mcpserver.MethodClientTokenMint, mcpserver.ClientTokenMintArgs{Ephemeral: ephemeral})
	if err != nil {
		return mcpserver.ClientToken{}, fmt.Errorf("mint the client token: %w", err)
	}
	return minted, nil
}

// revokeStaleEphemeral revokes client tokens minted for earlier runs: their
// secrets died with those runs, so nobody can hold them legitimately.
func revokeStaleEphemeral(ctx context.Context, reg *mcpserver.Registry) error {
	_, err := startupCall(ctx, reg, mcpserver.MethodTokenRevokeStaleEphemeral, mcpserver.NoArgs{})
	return err
}
