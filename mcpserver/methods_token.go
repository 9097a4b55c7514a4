package mcpserver

import (
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// TokenCreated is the result of token.create and token.rotate. Secret is the
// raw token: shown once, to the operator, and stored nowhere.
type TokenCreated struct {
	Token  store.Token `json:"token"`
	Secret string      `json:"secret"`
}

const schemaTokenCreate = `{"type":"object","properties":{
"label":{"type":"string"},
"kind":{"type":"string","enum":["client","session","operator"]},
"grants":{"type":"array","items":{"type":"object","properties":{
  "capability":{"type":"string"},
  "repositories":{"type":"array","items":{"type":"string"}},
  "expires_at":{"type":"string","format":"date-time"}},"required":["capability","repositories"]}},
"expires_in_seconds":{"type":"integer","minimum":1}},"additionalProperties":false}`

func (r *Registry) registerTokens() {
	r.Register(Method{
		Name:        "token.create",
		Capability:  store.CapAdmin,
		Flags:       Hidden,
		Description: "Mint a token with grants; the secret is returned once.",
		InputSchema: []byte(schemaTokenCreate),
		Handler: func(c *Call) (any, error) {
			var in struct {
				Label            string          `json:"label"`
				Kind             store.TokenKind `json:"kind"`
				Grants           []store.Grant   `json:"grants"`
				ExpiresInSeconds int64           `json:"expires_in_seconds"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			switch in.Kind {
			case store.KindClient:
				return nil, store.Deny(store.CodeInvalidArgument, "there is one client token: rotate it instead")
			case "", store.KindSession, store.KindOperator:
			default:
				// The store takes any kind; a typo must not mint a token.
				return nil, store.Deny(store.CodeInvalidArgument, "kind must be %q or %q", store.KindSession, store.KindOperator)
			}
			if in.ExpiresInSeconds < 0 {
				// Ignored, it would mint a token that never expires.
				return nil, store.Deny(store.CodeInvalidArgument, "expires_in_seconds must not be negative")
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
				return nil, err
			}
			return TokenCreated{Token: tok, Secret: raw}, nil
		},
	})
	r.Register(Method{
		Name:        "token.list",
		Capability:  store.CapAdmin,
		Flags:       Hidden | ReadOnly,
		Description: "List tokens: key id, label, kind, grants and times; never secrets.",
		InputSchema: []byte(`{"type":"object","properties":{"all":{"type":"boolean","description":"Include revoked and expired tokens."}},"additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			var in struct {
				All bool `json:"all"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			toks, err := c.Tx.Tokens()
			if err != nil {
				return nil, err
			}
			out := []store.Token{}
			for _, t := range toks {
				if in.All || (t.RevokedAt == nil && (t.ExpiresAt == nil || c.Tx.Now().Before(*t.ExpiresAt))) {
					out = append(out, t)
				}
			}
			return map[string]any{"tokens": out, "client_keyid": c.Tx.Setting(SettingClientKeyID)}, nil
		},
	})
	r.Register(Method{
		Name:        "token.revoke",
		Capability:  store.CapAdmin,
		Flags:       Hidden,
		Description: "Revoke a token by key id.",
		InputSchema: []byte(`{"type":"object","properties":{"keyid":{"type":"string"}},"required":["keyid"],"additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			var in struct {
				KeyID string `json:"keyid"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.KeyID == c.Tx.Setting(SettingClientKeyID) {
				return nil, store.Deny(store.CodeInvalidArgument, "the client token cannot be revoked, only rotated")
			}
			tok, err := c.Tx.RevokeToken(in.KeyID)
			if err != nil {
				return nil, err
			}
			return map[string]any{"token": tok}, nil
		},
	})
	r.Register(Method{
		Name:        "token.rotate",
		Capability:  store.CapAdmin,
		Flags:       Hidden,
		Description: "Replace a token (default: the client token) with a new secret and the same grants; the old one is revoked.",
		InputSchema: []byte(`{"type":"object","properties":{"keyid":{"type":"string"}},"additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			var in struct {
				KeyID string `json:"keyid"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			clientKeyID := c.Tx.Setting(SettingClientKeyID)
			if in.KeyID == "" {
				in.KeyID = clientKeyID
			}
			created, err := RotateToken(c.Tx, in.KeyID)
			if err != nil {
				return nil, err
			}
			if in.KeyID == clientKeyID {
				if err := c.Tx.SetSetting(SettingClientKeyID, created.Token.KeyID); err != nil {
					return nil, err
				}
				raw := created.Secret
				c.AfterCommit(func() {
					if err := r.env.ClientTokenRotated(raw); err != nil {
						r.log.Warn("rotated client token could not be kept", "err", err)
					}
				})
			}
			return created, nil
		},
	})
	r.Register(Method{
		Name:        "token.client",
		Capability:  store.CapAdmin,
		Flags:       Hidden | ReadOnly,
		Description: "The client token the tray copies, for a person without a tray.",
		InputSchema: []byte(`{"type":"object","additionalProperties":false}`),
		Handler: func(c *Call) (any, error) {
			raw, err := r.env.ClientToken()
			if err != nil {
				return nil, store.Deny(store.CodeNotFound, "%v", err)
			}
			return map[string]any{"keyid": c.Tx.Setting(SettingClientKeyID), "secret": raw}, nil
		},
	})
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
