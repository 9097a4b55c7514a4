package mcpserver

import (
	"strconv"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file are the daemon's own writes while it starts: the
// client token and the remembered listen port. They go through the registry
// so that they are audited like every other change, as the operator over
// TransportStartup. They assume nothing is served yet, so every other
// transport is refused (the StartupOnly flag).
const (
	MethodClientTokenMint           Name[ClientTokenMintArgs, ClientToken] = "client_token.mint"
	MethodClientTokenImport         Name[RawToken, ClientKeyID]            = "client_token.import"
	MethodClientTokenAdopt          Name[RawToken, ClientKeyID]            = "client_token.adopt"
	MethodClientTokenMarkEphemeral  Name[KeyIDArg, struct{}]               = "client_token.mark_ephemeral"
	MethodTokenRevokeStaleEphemeral Name[NoArgs, StaleEphemeralRevoked]    = "token.revoke_stale_ephemeral"
	MethodConnectionRememberPort    Name[RememberPortArgs, struct{}]       = "connection.remember_port"
)

// SettingHTTPPort names the setting that keeps the port the MCP listener was
// bound to, so the next start can take it again and clients configured with
// the endpoint keep working.
const SettingHTTPPort = "http_port"

// ClientTokenMintArgs are the arguments of client_token.mint.
type ClientTokenMintArgs struct {
	Ephemeral bool `json:"ephemeral,omitempty" jsonschema:"the token is kept nowhere and is revoked at the next start"`
}

// RawToken carries a raw token into client_token.import and
// client_token.adopt. The audit record keeps only a digest of the
// arguments and the store a salted hash of an imported secret, so the
// secret itself is written nowhere.
type RawToken struct {
	Token string `json:"token" jsonschema:"the raw token, sbt_<keyid>_<secret>"`
}

// ClientKeyID is the key id of the client token a call settled on.
type ClientKeyID struct {
	KeyID string `json:"keyid"`
}

// StaleEphemeralRevoked is the result of token.revoke_stale_ephemeral.
type StaleEphemeralRevoked struct {
	KeyIDs []string `json:"keyids"`
}

// RememberPortArgs are the arguments of connection.remember_port.
type RememberPortArgs struct {
	Port int `json:"port" jsonschema:"the TCP port the MCP listener is bound to"`
}

func (r *Registry) registerStartup() {
	r.Register(Define(MethodTokenRevokeStaleEphemeral, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly,
		"Revoke the client tokens this instance minted for its earlier runs only: their secrets died with those runs.",
		func(c *Call, _ NoArgs) (StaleEphemeralRevoked, error) {
			toks, err := c.Tx.Tokens()
			if err != nil {
				return StaleEphemeralRevoked{}, err
			}
			out := StaleEphemeralRevoked{KeyIDs: []string{}}
			for _, t := range toks {
				// Another instance's are its own, and live while it runs.
				if t.Ephemeral && t.RevokedAt == nil && t.Instance == c.Tx.InstanceID() {
					if _, err := c.Tx.RevokeToken(t.KeyID); err != nil {
						return StaleEphemeralRevoked{}, err
					}
					out.KeyIDs = append(out.KeyIDs, t.KeyID)
				}
			}
			return out, nil
		}))
	r.Register(Define(MethodClientTokenImport, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly|SecretArgs,
		"Make a token given from outside (SWITCHBOARD_MCP_TOKEN) the client token: known ones must authenticate and be client tokens, unknown ones are imported.",
		func(c *Call, in RawToken) (ClientKeyID, error) {
			keyID, _, err := store.ParseToken(in.Token)
			if err != nil {
				return ClientKeyID{}, err
			}
			if _, exists, err := c.Tx.Token(keyID); err != nil {
				return ClientKeyID{}, err
			} else if exists {
				tok, err := c.Tx.Authenticate(in.Token)
				if err != nil {
					return ClientKeyID{}, err
				}
				// The stdio bridge sends the same variable, so it may
				// hold a session or operator token: made the client
				// token, it would be copied by the tray, be unrevokable,
				// and be revoked by the next mint.
				if tok.Kind != store.KindClient {
					return ClientKeyID{}, store.Deny(store.CodeInvalidArgument,
						"token %s is a %s token, not a client token", keyID, tok.Kind)
				}
			} else if _, err := c.Tx.ImportToken(clientTokenSpec(false), in.Token); err != nil {
				return ClientKeyID{}, err
			}
			return ClientKeyID{KeyID: keyID}, c.Tx.SetSetting(SettingClientKeyID, keyID)
		}))
	r.Register(Define(MethodClientTokenAdopt, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly|SecretArgs,
		"Make a token kept in the keyring the client token again, if the database still knows it and it is live.",
		func(c *Call, in RawToken) (ClientKeyID, error) {
			// A database that was reset, or a token revoked since, does
			// not check out: the caller mints another.
			tok, err := c.Tx.Authenticate(in.Token)
			if err != nil {
				return ClientKeyID{}, err
			}
			return ClientKeyID{KeyID: tok.KeyID}, c.Tx.SetSetting(SettingClientKeyID, tok.KeyID)
		}))
	r.Register(Define(MethodClientTokenMint, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly,
		"Mint a new client token, revoking the previous one unless it was imported; the secret is returned once.",
		func(c *Call, in ClientTokenMintArgs) (ClientToken, error) {
			old, ok, err := c.Tx.Token(c.Tx.Setting(SettingClientKeyID))
			if err != nil {
				return ClientToken{}, err
			}
			// An imported token stays valid: its owner may set
			// SWITCHBOARD_MCP_TOKEN again on the next start.
			if ok && !old.Imported {
				if _, err := c.Tx.RevokeToken(old.KeyID); err != nil {
					return ClientToken{}, err
				}
			}
			tok, raw, err := c.Tx.CreateToken(clientTokenSpec(in.Ephemeral))
			if err != nil {
				return ClientToken{}, err
			}
			if err := c.Tx.SetSetting(SettingClientKeyID, tok.KeyID); err != nil {
				return ClientToken{}, err
			}
			return ClientToken{KeyID: tok.KeyID, Secret: raw}, nil
		}))
	r.Register(Define(MethodClientTokenMarkEphemeral, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly,
		"Mark the client token as kept nowhere, so the next start revokes it.",
		func(c *Call, in KeyIDArg) (struct{}, error) {
			// Only the client token: marking another would have the next
			// start revoke a token somebody holds.
			if in.KeyID == "" || in.KeyID != c.Tx.Setting(SettingClientKeyID) {
				return struct{}{}, store.Deny(store.CodeInvalidArgument, "token %q is not the client token", in.KeyID)
			}
			return struct{}{}, c.Tx.MarkEphemeral(in.KeyID)
		}))
	r.Register(Define(MethodConnectionRememberPort, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly,
		"Remember the port the MCP listener is bound to, for the next start.",
		func(c *Call, in RememberPortArgs) (struct{}, error) {
			if in.Port < 1 || in.Port > 65535 {
				return struct{}{}, store.Deny(store.CodeInvalidArgument, "port %d is not a TCP port", in.Port)
			}
			return struct{}{}, c.Tx.SetSetting(SettingHTTPPort, strconv.Itoa(in.Port))
		}))
}

// clientTokenSpec is the client token: every agent capability on every
// repository, which is what an agent configured with it needs.
func clientTokenSpec(ephemeral bool) store.TokenSpec {
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
