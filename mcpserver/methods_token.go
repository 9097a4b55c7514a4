package mcpserver

import (
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodTokenCreate Name[TokenCreateArgs, TokenCreated]  = "token.create"
	MethodTokenList   Name[TokenListArgs, TokenList]       = "token.list"
	MethodTokenRevoke Name[KeyIDArg, TokenRevoked]         = "token.revoke"
	MethodTokenRotate Name[OptionalKeyIDArg, TokenCreated] = "token.rotate"
	MethodTokenClient Name[NoArgs, ClientToken]            = "token.client"
)

// TokenCreated is the result of token.create and token.rotate. Secret is the
// raw token: shown once, to the operator, and stored nowhere.
type TokenCreated struct {
	Token  store.Token `json:"token"`
	Secret string      `json:"secret"`
}

// TokenCreateArgs are the arguments of token.create.
type TokenCreateArgs struct {
	Label string          `json:"label,omitempty" jsonschema:"what the token is for"`
	Kind  store.TokenKind `json:"kind,omitempty" jsonschema:"session or operator (default operator)"`
	// Grants default to every agent capability on every repository.
	Grants           []store.Grant `json:"grants,omitempty" jsonschema:"capabilities with repositories; default: every agent capability on all"`
	ExpiresInSeconds int64         `json:"expires_in_seconds,omitempty" jsonschema:"lifetime in seconds; default: no expiry"`
}

// KeyIDArg names one token.
type KeyIDArg struct {
	KeyID string `json:"keyid" jsonschema:"the token's public key id"`
}

// OptionalKeyIDArg names one token, or the client token when empty.
type OptionalKeyIDArg struct {
	KeyID string `json:"keyid,omitempty" jsonschema:"the token's public key id; default: the client token"`
}

// TokenListArgs are the arguments of token.list.
type TokenListArgs struct {
	All bool `json:"all,omitempty" jsonschema:"include revoked and expired tokens"`
}

// TokenList is the result of token.list: never a secret, salt or hash.
type TokenList struct {
	Tokens      []store.Token `json:"tokens"`
	ClientKeyID string        `json:"client_keyid"`
}

// TokenRevoked is the result of token.revoke.
type TokenRevoked struct {
	Token store.Token `json:"token"`
}

// ClientToken is the result of token.client.
type ClientToken struct {
	KeyID  string `json:"keyid"`
	Secret string `json:"secret"`
}

func (r *Registry) registerTokens() {
	r.Register(Define(MethodTokenCreate, On(Global, store.CapAdmin), Hidden,
		"Mint a token with grants; the secret is returned once.",
		func(c *Call, in TokenCreateArgs) (TokenCreated, error) {
			switch in.Kind {
			case store.KindClient:
				return TokenCreated{}, store.Deny(store.CodeInvalidArgument, "there is one client token: rotate it instead")
			case "", store.KindSession, store.KindOperator:
			default:
				// The store takes any kind; a typo must not mint a token.
				return TokenCreated{}, store.Deny(store.CodeInvalidArgument, "kind must be %q or %q", store.KindSession, store.KindOperator)
			}
			if in.ExpiresInSeconds < 0 {
				// Ignored, it would mint a token that never expires.
				return TokenCreated{}, store.Deny(store.CodeInvalidArgument, "expires_in_seconds must not be negative")
			}
			if len(in.Grants) == 0 {
				for _, cap := range store.AgentCapabilities() {
					in.Grants = append(in.Grants, store.Grant{Capability: cap, Repositories: []string{store.AllRepositories}})
				}
			}
			spec := store.TokenSpec{Label: in.Label, Kind: in.Kind, Grants: in.Grants}
			if in.ExpiresInSeconds > 0 {
				exp := c.Tx.Now().Add(time.Duration(in.ExpiresInSeconds) * time.Second)
				spec.ExpiresAt = &exp
			}
			tok, raw, err := c.Tx.CreateToken(spec)
			if err != nil {
				return TokenCreated{}, err
			}
			return TokenCreated{Token: tok, Secret: raw}, nil
		}))
	r.Register(Define(MethodTokenList, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"List tokens: key id, label, kind, grants and times; never secrets.",
		func(c *Call, in TokenListArgs) (TokenList, error) {
			toks, err := c.Tx.Tokens()
			if err != nil {
				return TokenList{}, err
			}
			out := []store.Token{}
			for _, t := range toks {
				if in.All || (t.RevokedAt == nil && (t.ExpiresAt == nil || c.Tx.Now().Before(*t.ExpiresAt))) {
					out = append(out, t)
				}
			}
			return TokenList{Tokens: out, ClientKeyID: c.Tx.Setting(SettingClientKeyID)}, nil
		}))
	r.Register(Define(MethodTokenRevoke, On(Global, store.CapAdmin), Hidden,
		"Revoke a token by key id.",
		func(c *Call, in KeyIDArg) (TokenRevoked, error) {
			if in.KeyID == c.Tx.Setting(SettingClientKeyID) {
				return TokenRevoked{}, store.Deny(store.CodeInvalidArgument, "the client token cannot be revoked, only rotated")
			}
			tok, err := c.Tx.RevokeToken(in.KeyID)
			return TokenRevoked{Token: tok}, err
		}))
	r.Register(Define(MethodTokenRotate, On(Global, store.CapAdmin), Hidden,
		"Replace a token (default: the client token) with a new secret and the same grants; the old one is revoked.",
		func(c *Call, in OptionalKeyIDArg) (TokenCreated, error) {
			clientKeyID := c.Tx.Setting(SettingClientKeyID)
			if in.KeyID == "" {
				in.KeyID = clientKeyID
			}
			created, err := RotateToken(c.Tx, in.KeyID)
			if err != nil {
				return TokenCreated{}, err
			}
			if in.KeyID == clientKeyID {
				if err := c.Tx.SetSetting(SettingClientKeyID, created.Token.KeyID); err != nil {
					return TokenCreated{}, err
				}
				raw := created.Secret
				c.AfterCommit(func() {
					if err := r.env.ClientTokenRotated(raw); err != nil {
						r.log.Warn("rotated client token could not be kept", "err", err)
					}
				})
			}
			return created, nil
		}))
	r.Register(Define(MethodTokenClient, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The client token the tray copies, for a person without a tray.",
		func(c *Call, _ NoArgs) (ClientToken, error) {
			raw, err := r.env.ClientToken()
			if err != nil {
				return ClientToken{}, store.Deny(store.CodeNotFound, "%v", err)
			}
			// A keyring can hold a token the database has since retired
			// (a failed write after a rotation); never hand that out.
			tok, err := c.Tx.Authenticate(raw)
			if err != nil {
				return ClientToken{}, store.Deny(store.CodeNotFound, "the kept client token is no longer valid (%s): start Switchboard or rotate it", store.CodeOf(err))
			}
			return ClientToken{KeyID: tok.KeyID, Secret: raw}, nil
		}))
}

// RotateToken revokes keyID and mints its replacement with the same label,
// kind, grants, session and lifetime left.
func RotateToken(tx *store.Tx, keyID string) (TokenCreated, error) {
	old, ok, err := tx.Token(keyID)
	if err != nil {
		return TokenCreated{}, err
	}
	if !ok || keyID == "" {
		return TokenCreated{}, store.Deny(store.CodeNotFound, "no token %q", keyID)
	}
	if old.RevokedAt != nil {
		return TokenCreated{}, store.Deny(store.CodeTokenRevoked, "token %s is already revoked", keyID)
	}
	if _, err := tx.RevokeToken(keyID); err != nil {
		return TokenCreated{}, err
	}
	tok, raw, err := tx.CreateToken(store.TokenSpec{
		Label: old.Label, Kind: old.Kind, Grants: old.Grants,
		SessionID: old.SessionID, ExpiresAt: old.ExpiresAt, Ephemeral: old.Ephemeral,
	})
	if err != nil {
		return TokenCreated{}, err
	}
	return TokenCreated{Token: tok, Secret: raw}, nil
}
