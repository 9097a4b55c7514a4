package store

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Capability names a permission a token grant carries.
type Capability string

// The capabilities of SPEC §3. WorkAuthor and Admin are never reachable over
// MCP: only the operator (GUI, CLI) holds them.
const (
	CapStatusRead    Capability = "status:read"
	CapWorkRead      Capability = "work:read"
	CapWorkClaim     Capability = "work:claim"
	CapArtifactWrite Capability = "artifact:write"
	CapReviewWrite   Capability = "review:write"
	CapSessionReport Capability = "session:report"
	CapAuditRead     Capability = "audit:read"
	CapWorkAuthor    Capability = "work:author"
	CapAdmin         Capability = "admin"
)

// AgentCapabilities are what an agent may hold: the client token gets all of
// them on every repository, a session token all of them on one.
var agentCapabilities = []Capability{
	CapStatusRead, CapWorkRead, CapWorkClaim, CapArtifactWrite,
	CapReviewWrite, CapSessionReport, CapAuditRead,
}

// AgentCapabilities returns a fresh copy of the agent capability set.
func AgentCapabilities() []Capability { return slices.Clone(agentCapabilities) }

// KnownCapability reports whether c is one of the capabilities above.
func KnownCapability(c Capability) bool {
	return slices.Contains(agentCapabilities, c) || c == CapWorkAuthor || c == CapAdmin
}

// TokenKind says what a token is for.
type TokenKind string

const (
	KindClient   TokenKind = "client"   // the one the tray copies
	KindSession  TokenKind = "session"  // minted per supervised session
	KindOperator TokenKind = "operator" // scripts acting for the person
)

// AllRepositories in a grant's repository list means every repository.
const AllRepositories = "*"

// Grant is one capability on some repositories, optionally expiring before
// the token itself does.
type Grant struct {
	Capability   Capability `json:"capability"`
	Repositories []string   `json:"repositories"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
}

// Token is what may be shown about a token: never its secret, salt or hash.
type Token struct {
	KeyID      string     `json:"keyid"`
	Label      string     `json:"label"`
	Kind       TokenKind  `json:"kind"`
	Grants     []Grant    `json:"grants"`
	SessionID  string     `json:"session_id,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	// Ephemeral marks a client token minted for one run because no keyring
	// could keep it; the next start revokes it.
	Ephemeral bool `json:"ephemeral,omitempty"`
	// Imported marks a token whose raw form was made outside Switchboard
	// (SWITCHBOARD_MCP_TOKEN): its owner keeps the secret, so Switchboard
	// never retires it on its own.
	Imported bool `json:"imported,omitempty"`
	// Instance is the instance that made the token, in team mode: a
	// client token is one instance's, and so are its revocations at start.
	Instance string `json:"instance,omitempty"`
}

// tokenRecord is the stored form: the public fields plus the salt and
// sha256(salt || secret). It never leaves this package.
type tokenRecord struct {
	Token
	Salt []byte `json:"salt"`
	Hash []byte `json:"hash"`
}

const (
	tokenPrefix   = "sbt_"
	keyIDHexLen   = 16
	secretBytes   = 32
	saltBytes     = 16
	secretB64Len  = 43 // base64url of 32 bytes, no padding
	tokenTotalLen = len(tokenPrefix) + keyIDHexLen + 1 + secretB64Len
)

// NewTokenSecret makes a new raw token `sbt_<keyid>_<secret>` and returns it
// with its key id and secret.
func NewTokenSecret() (raw, keyID, secret string) {
	var k [keyIDHexLen / 2]byte
	var s [secretBytes]byte
	rand.Read(k[:]) // crypto/rand.Read never fails (Go 1.24+).
	rand.Read(s[:])
	keyID = hex.EncodeToString(k[:])
	secret = base64.RawURLEncoding.EncodeToString(s[:])
	return tokenPrefix + keyID + "_" + secret, keyID, secret
}

// ParseToken splits a raw token into key id and secret. Only the first two
// underscores separate: the base64url secret may itself contain '_'. The
// error is a *Denial with token_missing or token_malformed and never repeats
// the input.
func ParseToken(raw string) (keyID, secret string, err error) {
	if raw == "" {
		return "", "", Deny(CodeTokenMissing, "no bearer token")
	}
	rest, ok := strings.CutPrefix(raw, tokenPrefix)
	if !ok {
		return "", "", Deny(CodeTokenMalformed, "token does not start with %q", tokenPrefix)
	}
	keyID, secret, ok = strings.Cut(rest, "_")
	if !ok || len(keyID) != keyIDHexLen || !isLowerHex(keyID) {
		return "", "", Deny(CodeTokenMalformed, "token key id must be %d lowercase hex characters", keyIDHexLen)
	}
	if len(secret) != secretB64Len {
		return "", "", Deny(CodeTokenMalformed, "token secret has the wrong length")
	}
	if b, err := base64.RawURLEncoding.Strict().DecodeString(secret); err != nil || len(b) != secretBytes {
		return "", "", Deny(CodeTokenMalformed, "token secret is not base64url")
	}
	return keyID, secret, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func hashSecret(salt []byte, secret string) []byte {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(secret))
	return h.Sum(nil)
}

// TokenSpec describes a token to create.
type TokenSpec struct {
	Label     string
	Kind      TokenKind
	Grants    []Grant
	SessionID string
	ExpiresAt *time.Time
	Ephemeral bool
}

// CreateToken mints a new token and stores its salted hash. The raw token is
// returned once and stored nowhere by this package.
func (tx *Tx) CreateToken(spec TokenSpec) (Token, string, error) {
	raw, keyID, secret := NewTokenSecret()
	tok, err := tx.putToken(spec, keyID, secret, false)
	return tok, raw, err
}

// ImportToken stores a token whose raw form was made elsewhere (the
// SWITCHBOARD_MCP_TOKEN variable). The key id must not exist yet.
func (tx *Tx) ImportToken(spec TokenSpec, raw string) (Token, error) {
	keyID, secret, err := ParseToken(raw)
	if err != nil {
		return Token{}, err
	}
	if tx.tx.Bucket(bucketTokens).Get([]byte(keyID)) != nil {
		return Token{}, fmt.Errorf("import token %s: key id already exists", keyID)
	}
	return tx.putToken(spec, keyID, secret, true)
}

func (tx *Tx) putToken(spec TokenSpec, keyID, secret string, imported bool) (Token, error) {
	if spec.Kind == "" {
		spec.Kind = KindOperator
	}
	for _, g := range spec.Grants {
		if !KnownCapability(g.Capability) {
			return Token{}, Deny(CodeInvalidArgument, "unknown capability %q", g.Capability)
		}
		if len(g.Repositories) == 0 {
			return Token{}, Deny(CodeInvalidArgument, "grant of %s names no repository (use %q for all)", g.Capability, AllRepositories)
		}
	}
	salt := make([]byte, saltBytes)
	rand.Read(salt)
	rec := tokenRecord{
		Token: Token{
			KeyID:     keyID,
			Label:     spec.Label,
			Kind:      spec.Kind,
			Grants:    spec.Grants,
			SessionID: spec.SessionID,
			CreatedAt: tx.now,
			ExpiresAt: spec.ExpiresAt,
			Ephemeral: spec.Ephemeral,
			Imported:  imported,
			Instance:  tx.db.instance,
		},
		Salt: salt,
		Hash: hashSecret(salt, secret),
	}
	if err := tx.putTokenRecord(&rec); err != nil {
		return Token{}, err
	}
	return rec.Token, nil
}

func (tx *Tx) putTokenRecord(rec *tokenRecord) error {
	v, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode token %s: %w", rec.KeyID, err)
	}
	if err := tx.tx.Bucket(bucketTokens).Put([]byte(rec.KeyID), v); err != nil {
		return fmt.Errorf("store token %s: %w", rec.KeyID, err)
	}
	return nil
}

// tokenRecord returns the stored record for keyID, or nil if there is none.
// It comes from the DB's cache when the stored bytes are the ones decoded
// last (see decodedCache); its Token is the caller's to change, its Salt and
// Hash are not.
func (tx *Tx) tokenRecord(keyID string) (*tokenRecord, error) {
	v := tx.tx.Bucket(bucketTokens).Get([]byte(keyID))
	if v == nil {
		return nil, nil
	}
	rec, err := tx.db.tokens.decode(keyID, v, false)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// Authenticate checks a raw bearer token: its format, that it exists, that
// the secret matches (in constant time), that it is not revoked or expired.
// Denials carry the codes token_missing, token_malformed, token_invalid,
// token_revoked, token_expired.
func (tx *Tx) Authenticate(raw string) (Token, error) {
	keyID, secret, err := ParseToken(raw)
	if err != nil {
		return Token{}, err
	}
	rec, err := tx.tokenRecord(keyID)
	if err != nil {
		return Token{}, err
	}
	if rec == nil || subtle.ConstantTimeCompare(hashSecret(rec.Salt, secret), rec.Hash) != 1 {
		return Token{}, Deny(CodeTokenInvalid, "token not recognised")
	}
	return rec.Token, checkLive(rec.Token, tx.now)
}

// checkLive returns the token_revoked or token_expired denial for a token
// that was valid once.
func checkLive(t Token, now time.Time) error {
	if t.RevokedAt != nil {
		return Deny(CodeTokenRevoked, "token %s was revoked", t.KeyID)
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return Deny(CodeTokenExpired, "token %s expired at %s", t.KeyID, t.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// TokenByKeyID returns a live token by key id: revoked and expired tokens
// give their denial. The registry uses it to re-check, inside its own
// transaction, a token authenticated moments before.
func (tx *Tx) TokenByKeyID(keyID string) (Token, error) {
	rec, err := tx.tokenRecord(keyID)
	if err != nil {
		return Token{}, err
	}
	if rec == nil {
		return Token{}, Deny(CodeTokenInvalid, "token not recognised")
	}
	return rec.Token, checkLive(rec.Token, tx.now)
}

// Token returns any token, live or not, by key id.
func (tx *Tx) Token(keyID string) (Token, bool, error) {
	rec, err := tx.tokenRecord(keyID)
	if err != nil || rec == nil {
		return Token{}, false, err
	}
	return rec.Token, true, nil
}

// lastUsedResolution is how stale LastUsedAt may be: a token used many times
// a second is rewritten at most once a second.
const lastUsedResolution = time.Second

// MarkUsed records that t was just used, unless its last use is recorded
// within lastUsedResolution: a token used many times a second is rewritten
// at most once a second.
func (tx *Tx) MarkUsed(t Token) error {
	if t.LastUsedAt != nil && tx.now.Sub(*t.LastUsedAt) < lastUsedResolution {
		return nil
	}
	return tx.TouchToken(t.KeyID)
}

// TouchToken records that the token was just used.
func (tx *Tx) TouchToken(keyID string) error {
	rec, err := tx.tokenRecord(keyID)
	if err != nil || rec == nil {
		return err
	}
	now := tx.now
	rec.LastUsedAt = &now
	return tx.putTokenRecord(rec)
}

// RevokeToken marks a token revoked. Revoking twice keeps the first time.
func (tx *Tx) RevokeToken(keyID string) (Token, error) {
	rec, err := tx.tokenRecord(keyID)
	if err != nil {
		return Token{}, err
	}
	if rec == nil {
		return Token{}, Deny(CodeNotFound, "no token %s", keyID)
	}
	if rec.RevokedAt == nil {
		now := tx.now
		rec.RevokedAt = &now
		if err := tx.putTokenRecord(rec); err != nil {
			return Token{}, err
		}
	}
	return rec.Token, nil
}

// Tokens lists every token, oldest key id order (bucket order).
func (tx *Tx) Tokens() ([]Token, error) {
	var out []Token
	err := tx.tx.Bucket(bucketTokens).ForEach(func(k, v []byte) error {
		rec, err := tx.db.tokens.decode(string(k), v, true)
		if err != nil {
			return err
		}
		out = append(out, rec.Token)
		return nil
	})
	return out, err
}

// Authorize decides whether tok may use capability c on repository repoID,
// or on every repository when repoID is AllRepositories (a listing that
// names none). There is no "any repository": a call on an object is checked
// on the object's own repository, and AuthorizeAny is asked by name.
// Denials, in the order checked: capability_missing (no grant of c at all),
// repo_not_registered, capability_scope_mismatch (c granted, not for this
// repository), capability_expired (every grant that would allow it has
// expired).
func (tx *Tx) Authorize(tok Token, c Capability, repoID string) error {
	if repoID == "" {
		// A caller that forgot to resolve its object must not be let
		// through on a grant for some other repository.
		return Deny(CodeInternal, "authorization of %s named no repository", c)
	}
	held := grantsOf(tok, c)
	if len(held) == 0 {
		return Deny(CodeCapabilityMissing, "token %s has no %s grant", tok.KeyID, c)
	}
	if repoID != AllRepositories && !tx.RepositoryExists(repoID) {
		return Deny(CodeRepoNotRegistered, "repository %s is not registered", repoID)
	}
	inScope := 0
	for _, g := range held {
		if !slices.Contains(g.Repositories, AllRepositories) && (repoID == AllRepositories || !slices.Contains(g.Repositories, repoID)) {
			continue
		}
		inScope++
		if g.live(tx.now) {
			return nil
		}
	}
	if inScope == 0 {
		if repoID == AllRepositories {
			return Deny(CodeCapabilityScopeMismatch, "token %s holds %s for some repositories only: name one", tok.KeyID, c)
		}
		return Deny(CodeCapabilityScopeMismatch, "token %s holds %s, but not for repository %s", tok.KeyID, c, repoID)
	}
	return Deny(CodeCapabilityExpired, "token %s: grant of %s has expired", tok.KeyID, c)
}

// AuthorizeAny decides whether tok may use c on at least one repository:
// the check of a method that acts on no repository's objects (status, the
// tool catalogue), whose answer the method then limits to Scope.
func (tx *Tx) AuthorizeAny(tok Token, c Capability) error {
	held := grantsOf(tok, c)
	if len(held) == 0 {
		return Deny(CodeCapabilityMissing, "token %s has no %s grant", tok.KeyID, c)
	}
	for _, g := range held {
		if g.live(tx.now) {
			return nil
		}
	}
	return Deny(CodeCapabilityExpired, "token %s: grant of %s has expired", tok.KeyID, c)
}

// Scope is where a capability may be used: on every repository, or on the
// ones listed.
type Scope struct {
	All          bool
	Repositories []string
}

// Contains reports whether the scope covers repoID.
func (s Scope) Contains(repoID string) bool {
	return s.All || slices.Contains(s.Repositories, repoID)
}

// Scope returns where tok may use c now, from its live grants.
func (tx *Tx) Scope(tok Token, c Capability) Scope {
	var s Scope
	for _, g := range grantsOf(tok, c) {
		if !g.live(tx.now) {
			continue
		}
		for _, r := range g.Repositories {
			switch {
			case r == AllRepositories:
				return Scope{All: true}
			case !slices.Contains(s.Repositories, r):
				s.Repositories = append(s.Repositories, r)
			}
		}
	}
	return s
}

func grantsOf(tok Token, c Capability) []Grant {
	var held []Grant
	for _, g := range tok.Grants {
		if g.Capability == c {
			held = append(held, g)
		}
	}
	return held
}

// live reports whether the grant has not expired at now.
func (g Grant) live(now time.Time) bool { return g.ExpiresAt == nil || now.Before(*g.ExpiresAt) }

// MarkEphemeral flags a token as minted for one run only, so the next start
// revokes it.
func (tx *Tx) MarkEphemeral(keyID string) error {
	rec, err := tx.tokenRecord(keyID)
	if err != nil || rec == nil {
		return err
	}
	rec.Ephemeral = true
	return tx.putTokenRecord(rec)
}
