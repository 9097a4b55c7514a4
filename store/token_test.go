package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var tokenRE = regexp.MustCompile(`^sbt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`)

func TestNewTokenSecretFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		raw, keyID, secret := NewTokenSecret()
		if !tokenRE.MatchString(raw) {
			t.Fatalf("token %q does not match %s", raw, tokenRE)
		}
		if raw != "sbt_"+keyID+"_"+secret {
			t.Fatalf("raw %q is not sbt_<keyid>_<secret>", raw)
		}
		b, err := base64.RawURLEncoding.DecodeString(secret)
		if err != nil || len(b) != 32 {
			t.Fatalf("secret decodes to %d bytes, %v", len(b), err)
		}
		k, s, err := ParseToken(raw)
		if err != nil || k != keyID || s != secret {
			t.Fatalf("ParseToken(NewTokenSecret()) = %q, %q, %v", k, s, err)
		}
		if seen[keyID] || seen[secret] {
			t.Fatal("NewTokenSecret repeated a key id or secret")
		}
		seen[keyID], seen[secret] = true, true
	}
}

// secretWithUnderscores builds a valid 32-byte secret whose base64url form
// contains '_' (sextet 63), including as its first character.
func secretWithUnderscores() string {
	b := bytes.Repeat([]byte{0xff}, 32)
	b[5] = 0x00
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestParseToken(t *testing.T) {
	const keyID = "0123456789abcdef"
	_, _, good := NewTokenSecret()
	under := secretWithUnderscores()
	if !strings.HasPrefix(under, "_") || strings.Count(under, "_") < 10 {
		t.Fatalf("setup: %q should start with and contain many '_'", under)
	}
	// A secret whose last character sets the 2 padding bits: same length,
	// same alphabet, not canonical base64url.
	nonCanonical := good[:42] + "B"
	if strings.HasSuffix(good, "B") {
		nonCanonical = good[:42] + "C"
	}

	for _, tc := range []struct {
		name       string
		raw        string
		wantCode   Code // "" means valid
		wantKeyID  string
		wantSecret string
	}{
		{"valid", "sbt_" + keyID + "_" + good, "", keyID, good},
		{"valid secret full of underscores", "sbt_" + keyID + "_" + under, "", keyID, under},
		{"valid secret of dashes", "sbt_" + keyID + "_" + base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xef, 0xbe}, 11)[:32]), "", keyID, base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xef, 0xbe}, 11)[:32])},
		{"empty", "", CodeTokenMissing, "", ""},
		{"wrong prefix", "sbx_" + keyID + "_" + good, CodeTokenMalformed, "", ""},
		{"uppercase prefix", "SBT_" + keyID + "_" + good, CodeTokenMalformed, "", ""},
		{"bearer scheme left in", "Bearer sbt_" + keyID + "_" + good, CodeTokenMalformed, "", ""},
		{"leading space", " sbt_" + keyID + "_" + good, CodeTokenMalformed, "", ""},
		{"trailing newline", "sbt_" + keyID + "_" + good + "\n", CodeTokenMalformed, "", ""},
		{"prefix only", "sbt_", CodeTokenMalformed, "", ""},
		{"uppercase hex key id", "sbt_0123456789ABCDEF_" + good, CodeTokenMalformed, "", ""},
		{"non-hex key id", "sbt_0123456789abcdeg_" + good, CodeTokenMalformed, "", ""},
		{"short key id", "sbt_0123456789abcde_" + good, CodeTokenMalformed, "", ""},
		{"long key id", "sbt_0123456789abcdef0_" + good, CodeTokenMalformed, "", ""},
		{"empty key id", "sbt__" + good, CodeTokenMalformed, "", ""},
		{"no separator", "sbt_" + keyID + good, CodeTokenMalformed, "", ""},
		{"no secret", "sbt_" + keyID + "_", CodeTokenMalformed, "", ""},
		{"secret too short", "sbt_" + keyID + "_" + good[:42], CodeTokenMalformed, "", ""},
		{"secret too long", "sbt_" + keyID + "_" + good + "A", CodeTokenMalformed, "", ""},
		{"secret with padding", "sbt_" + keyID + "_" + good[:42] + "=", CodeTokenMalformed, "", ""},
		{"secret in std base64 alphabet", "sbt_" + keyID + "_" + strings.Repeat("+", 42) + "A", CodeTokenMalformed, "", ""},
		{"secret with a slash", "sbt_" + keyID + "_/" + good[1:], CodeTokenMalformed, "", ""},
		{"secret not canonical", "sbt_" + keyID + "_" + nonCanonical, CodeTokenMalformed, "", ""},
		{"secret with a space", "sbt_" + keyID + "_ " + good[1:], CodeTokenMalformed, "", ""},
		{"secret with non-ASCII", "sbt_" + keyID + "_é" + good[2:], CodeTokenMalformed, "", ""},
		// Only the first two underscores separate: a third right after the key
		// id belongs to the secret.
		{"underscore right after the separator", "sbt_" + keyID + "__" + good[1:], "", keyID, "_" + good[1:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s, err := ParseToken(tc.raw)
			if tc.wantCode == "" {
				if err != nil || k != tc.wantKeyID || s != tc.wantSecret {
					t.Fatalf("ParseToken = %q, %q, %v; want %q, %q, nil", k, s, err, tc.wantKeyID, tc.wantSecret)
				}
				return
			}
			if got := CodeOf(err); got != tc.wantCode {
				t.Fatalf("code %q (err %v), want %q", got, err, tc.wantCode)
			}
			var d *Denial
			if !errors.As(err, &d) {
				t.Fatalf("error %T is not a *Denial", err)
			}
			if k != "" || s != "" {
				t.Errorf("failed parse returned key id %q, secret %q", k, s)
			}
			// The error never repeats what it was given.
			msg := err.Error()
			if _, secretPart, ok := strings.Cut(strings.TrimPrefix(tc.raw, "sbt_"), "_"); ok && len(secretPart) >= 8 && strings.Contains(msg, secretPart) {
				t.Errorf("error %q contains the secret part", msg)
			}
			if len(tc.raw) > 8 && strings.Contains(msg, strings.TrimSpace(tc.raw)) {
				t.Errorf("error %q contains the input", msg)
			}
			for _, frag := range []string{good, good[:20], under[:20]} {
				if strings.Contains(msg, frag) {
					t.Errorf("error %q contains secret material", msg)
				}
			}
		})
	}
}

func createToken(t *testing.T, db *DB, spec TokenSpec) (Token, string) {
	t.Helper()
	var tok Token
	var raw string
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		tok, raw, err = tx.CreateToken(spec)
		return err
	})
	return tok, raw
}

func authenticate(db *DB, raw string) (Token, error) {
	var tok Token
	err := db.View(context.Background(), func(tx *Tx) error {
		var err error
		tok, err = tx.Authenticate(raw)
		return err
	})
	return tok, err
}

func TestCreateAndAuthenticate(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	t0 := clock.Now()
	inHour := t0.Add(time.Hour)
	allRepos := []Grant{{Capability: CapStatusRead, Repositories: []string{AllRepositories}}}

	live, liveRaw := createToken(t, db, TokenSpec{Label: "live", Kind: KindClient, Grants: allRepos})
	_, revokedRaw := createToken(t, db, TokenSpec{Label: "revoked", Kind: KindSession, Grants: allRepos, SessionID: "ses_1"})
	_, expRaw := createToken(t, db, TokenSpec{Label: "expiring", Grants: allRepos, ExpiresAt: &inHour})
	revokedKeyID, _, _ := ParseToken(revokedRaw)
	mustUpdate(t, db, func(tx *Tx) error {
		_, err := tx.RevokeToken(revokedKeyID)
		return err
	})

	if live.Label != "live" || live.Kind != KindClient || !live.CreatedAt.Equal(t0) || len(live.Grants) != 1 {
		t.Errorf("created token = %+v", live)
	}
	liveKeyID, liveSecret, _ := ParseToken(liveRaw)
	if live.KeyID != liveKeyID {
		t.Errorf("token key id %q, raw has %q", live.KeyID, liveKeyID)
	}
	_, _, otherSecret := NewTokenSecret()
	unknownRaw, _, _ := NewTokenSecret()

	type check struct {
		name      string
		raw       string
		advance   time.Duration // moves the clock before this check
		wantCode  Code
		wantKeyID string
	}
	for _, c := range []check{
		{name: "ok", raw: liveRaw, wantKeyID: liveKeyID},
		{name: "missing", raw: "", wantCode: CodeTokenMissing},
		{name: "malformed", raw: "sbt_nope", wantCode: CodeTokenMalformed},
		{name: "wrong secret, right key id", raw: "sbt_" + liveKeyID + "_" + otherSecret, wantCode: CodeTokenInvalid},
		{name: "secret with one character changed", raw: "sbt_" + liveKeyID + "_" + flipFirst(liveSecret), wantCode: CodeTokenInvalid},
		{name: "unknown key id", raw: unknownRaw, wantCode: CodeTokenInvalid},
		{name: "revoked", raw: revokedRaw, wantCode: CodeTokenRevoked},
		{name: "revoked with a wrong secret is just invalid", raw: "sbt_" + revokedKeyID + "_" + otherSecret, wantCode: CodeTokenInvalid},
		{name: "not yet expired", raw: expRaw, advance: 59 * time.Minute},
		{name: "expires exactly now", raw: expRaw, advance: time.Minute, wantCode: CodeTokenExpired},
		{name: "expired", raw: expRaw, advance: time.Second, wantCode: CodeTokenExpired},
		{name: "live token still ok later", raw: liveRaw, wantKeyID: liveKeyID},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock.Add(c.advance)
			tok, err := authenticate(db, c.raw)
			if got := CodeOf(err); got != c.wantCode {
				t.Fatalf("code %q (err %v), want %q", got, err, c.wantCode)
			}
			if c.wantKeyID != "" && tok.KeyID != c.wantKeyID {
				t.Errorf("authenticated key id %q, want %q", tok.KeyID, c.wantKeyID)
			}
			if err != nil {
				_, secret, _ := strings.Cut(strings.TrimPrefix(c.raw, "sbt_"), "_")
				if secret != "" && strings.Contains(err.Error(), secret) {
					t.Errorf("error %q contains the secret", err)
				}
			}
		})
	}
}

func flipFirst(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

func TestTokenByKeyID(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	in := clock.Now().Add(time.Minute)
	live, _ := createToken(t, db, TokenSpec{Label: "a"})
	rev, _ := createToken(t, db, TokenSpec{Label: "b"})
	exp, _ := createToken(t, db, TokenSpec{Label: "c", ExpiresAt: &in})
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.RevokeToken(rev.KeyID); return err })
	clock.Add(time.Hour)
	for _, tc := range []struct {
		keyID string
		want  Code
	}{
		{live.KeyID, ""},
		{rev.KeyID, CodeTokenRevoked},
		{exp.KeyID, CodeTokenExpired},
		{"0000000000000000", CodeTokenInvalid},
		{"", CodeTokenInvalid},
	} {
		mustView(t, db, func(tx *Tx) error {
			tok, err := tx.TokenByKeyID(tc.keyID)
			if got := CodeOf(err); got != tc.want {
				t.Errorf("TokenByKeyID(%q): code %q (%v), want %q", tc.keyID, got, err, tc.want)
			}
			if tc.want == "" && tok.KeyID != tc.keyID {
				t.Errorf("TokenByKeyID(%q) returned %q", tc.keyID, tok.KeyID)
			}
			// Token returns any token, live or not.
			got, ok, err := tx.Token(tc.keyID)
			wantOK := tc.want != CodeTokenInvalid
			if err != nil || ok != wantOK || (ok && got.KeyID != tc.keyID) {
				t.Errorf("Token(%q) = %q, %v, %v; want ok=%v", tc.keyID, got.KeyID, ok, err, wantOK)
			}
			return nil
		})
	}
}

func TestStoredTokenHoldsNoSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var raws, secrets []string
	salts := map[string]bool{}
	for i := range 20 {
		var tok Token
		var raw string
		mustUpdate(t, db, func(tx *Tx) error {
			if i == 0 {
				// One imported token too: its raw form came from outside.
				raw, _, _ = NewTokenSecret()
				tok, err = tx.ImportToken(TokenSpec{Label: "imported", Kind: KindClient}, raw)
				return err
			}
			tok, raw, err = tx.CreateToken(TokenSpec{Label: "t", Grants: []Grant{{Capability: CapWorkRead, Repositories: []string{"*"}}}})
			return err
		})
		keyID, secret, err := ParseToken(raw)
		if err != nil || keyID != tok.KeyID {
			t.Fatalf("created raw token does not parse: %v", err)
		}
		raws, secrets = append(raws, raw), append(secrets, secret)

		mustView(t, db, func(tx *Tx) error {
			v := tx.tx.Bucket(bucketTokens).Get([]byte(keyID))
			if v == nil {
				t.Fatalf("no record for %s", keyID)
			}
			if s, found := containsAny(v, raw, secret); found {
				t.Errorf("stored record contains %q", s)
			}
			var rec tokenRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.Salt) != 16 {
				t.Errorf("salt is %d bytes, want 16", len(rec.Salt))
			}
			want := sha256.Sum256(append(slices.Clone(rec.Salt), secret...))
			if !bytes.Equal(rec.Hash, want[:]) {
				t.Errorf("hash is not sha256(salt || secret)")
			}
			if salts[string(rec.Salt)] {
				t.Errorf("salt repeated")
			}
			salts[string(rec.Salt)] = true
			return nil
		})
	}
	// Revoking and touching rewrite records; still nothing secret.
	mustUpdate(t, db, func(tx *Tx) error {
		k, _, _ := ParseToken(raws[1])
		if _, err := tx.RevokeToken(k); err != nil {
			return err
		}
		k, _, _ = ParseToken(raws[2])
		return tx.TouchToken(k)
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	file := fileBytes(t, path)
	for i := range raws {
		if s, found := containsAny(file, raws[i], secrets[i]); found {
			t.Errorf("database file contains %q", s)
		}
	}
}

func TestImportToken(t *testing.T) {
	db := openTestDB(t, Options{})
	raw, keyID, _ := NewTokenSecret()
	spec := TokenSpec{Label: "env", Kind: KindClient, Grants: []Grant{{Capability: CapStatusRead, Repositories: []string{"*"}}}}
	var tok Token
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		tok, err = tx.ImportToken(spec, raw)
		return err
	})
	if tok.KeyID != keyID || tok.Kind != KindClient || tok.Label != "env" {
		t.Errorf("imported token = %+v", tok)
	}
	if got, err := authenticate(db, raw); err != nil || got.KeyID != keyID {
		t.Fatalf("Authenticate(imported) = %q, %v", got.KeyID, err)
	}

	// Same key id again, with the same or another secret: refused, and the
	// stored token is unchanged.
	_, _, other := NewTokenSecret()
	for _, again := range []string{raw, "sbt_" + keyID + "_" + other} {
		err := db.Update(context.Background(), func(tx *Tx) error {
			_, err := tx.ImportToken(TokenSpec{Label: "again"}, again)
			return err
		})
		if err == nil {
			t.Fatal("ImportToken of an existing key id succeeded")
		}
		_, secret, _ := ParseToken(again)
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q contains the secret", err)
		}
	}
	if got, err := authenticate(db, raw); err != nil || got.Label != "env" {
		t.Fatalf("original token after failed re-import: %+v, %v", got, err)
	}

	for _, bad := range []struct {
		raw  string
		code Code
	}{{"", CodeTokenMissing}, {"sbt_x_y", CodeTokenMalformed}} {
		err := db.Update(context.Background(), func(tx *Tx) error {
			_, err := tx.ImportToken(spec, bad.raw)
			return err
		})
		if CodeOf(err) != bad.code {
			t.Errorf("ImportToken(%q): %v, want %s", bad.raw, err, bad.code)
		}
	}
}

func TestCreateTokenValidation(t *testing.T) {
	db := openTestDB(t, Options{})
	for _, tc := range []struct {
		name     string
		spec     TokenSpec
		wantCode Code
		wantKind TokenKind
	}{
		{"no grants, default kind", TokenSpec{}, "", KindOperator},
		{"explicit kind", TokenSpec{Kind: KindSession}, "", KindSession},
		{"every capability", TokenSpec{Grants: func() []Grant {
			var gs []Grant
			for _, c := range append(AgentCapabilities(), CapWorkAuthor, CapAdmin) {
				gs = append(gs, Grant{Capability: c, Repositories: []string{"*"}})
			}
			return gs
		}()}, "", KindOperator},
		{"unknown capability", TokenSpec{Grants: []Grant{{Capability: "work:everything", Repositories: []string{"*"}}}}, CodeInvalidArgument, ""},
		{"empty capability", TokenSpec{Grants: []Grant{{Repositories: []string{"*"}}}}, CodeInvalidArgument, ""},
		{"grant with no repository", TokenSpec{Grants: []Grant{{Capability: CapWorkRead}}}, CodeInvalidArgument, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tok Token
			var raw string
			err := db.Update(context.Background(), func(tx *Tx) error {
				var err error
				tok, raw, err = tx.CreateToken(tc.spec)
				return err
			})
			if got := CodeOf(err); got != tc.wantCode {
				t.Fatalf("code %q (%v), want %q", got, err, tc.wantCode)
			}
			if err != nil {
				return
			}
			if tok.Kind != tc.wantKind {
				t.Errorf("kind %q, want %q", tok.Kind, tc.wantKind)
			}
			if !tokenRE.MatchString(raw) {
				t.Errorf("raw %q malformed", raw)
			}
		})
	}
	// A refused spec stored nothing.
	mustView(t, db, func(tx *Tx) error {
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		if len(toks) != 3 {
			t.Errorf("%d tokens stored, want 3", len(toks))
		}
		return nil
	})
}

func TestCapabilities(t *testing.T) {
	agent := AgentCapabilities()
	want := []Capability{"status:read", "work:read", "work:claim", "artifact:write", "review:write", "session:report", "audit:read"}
	if !slices.Equal(agent, want) {
		t.Errorf("AgentCapabilities() = %v, want %v", agent, want)
	}
	agent[0] = "mutated"
	if AgentCapabilities()[0] != CapStatusRead {
		t.Error("AgentCapabilities returns shared storage")
	}
	for _, c := range append(want, "work:author", "admin") {
		if !KnownCapability(c) {
			t.Errorf("KnownCapability(%q) = false", c)
		}
	}
	for _, c := range []Capability{"", "Admin", "work:*", "status:write"} {
		if KnownCapability(c) {
			t.Errorf("KnownCapability(%q) = true", c)
		}
	}
}

func TestTouchToken(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	tok, _ := createToken(t, db, TokenSpec{Label: "t"})
	if tok.LastUsedAt != nil {
		t.Fatalf("new token has LastUsedAt %v", tok.LastUsedAt)
	}
	for range 2 {
		clock.Add(90 * time.Second)
		want := clock.Now()
		mustUpdate(t, db, func(tx *Tx) error { return tx.TouchToken(tok.KeyID) })
		mustView(t, db, func(tx *Tx) error {
			got, ok, err := tx.Token(tok.KeyID)
			if err != nil || !ok {
				t.Fatalf("Token: %v %v", ok, err)
			}
			if got.LastUsedAt == nil || !got.LastUsedAt.Equal(want) {
				t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, want)
			}
			if !got.CreatedAt.Equal(tok.CreatedAt) || got.Label != "t" {
				t.Errorf("TouchToken changed other fields: %+v", got)
			}
			return nil
		})
	}
	// Touching an unknown key id creates nothing.
	mustUpdate(t, db, func(tx *Tx) error { return tx.TouchToken("ffffffffffffffff") })
	mustView(t, db, func(tx *Tx) error {
		if _, ok, _ := tx.Token("ffffffffffffffff"); ok {
			t.Error("TouchToken created a token")
		}
		return nil
	})
}

func TestRevokeToken(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	tok, raw := createToken(t, db, TokenSpec{Label: "t"})
	first := clock.Now().Add(time.Minute)
	clock.Add(time.Minute)
	for range 2 {
		var got Token
		mustUpdate(t, db, func(tx *Tx) error {
			var err error
			got, err = tx.RevokeToken(tok.KeyID)
			return err
		})
		if got.RevokedAt == nil || !got.RevokedAt.Equal(first) {
			t.Errorf("RevokedAt = %v, want the first revocation %v", got.RevokedAt, first)
		}
		clock.Add(time.Hour)
	}
	if _, err := authenticate(db, raw); CodeOf(err) != CodeTokenRevoked {
		t.Errorf("Authenticate revoked: %v", err)
	}
	err := db.Update(context.Background(), func(tx *Tx) error { _, err := tx.RevokeToken("0123456789abcdef"); return err })
	if CodeOf(err) != CodeNotFound {
		t.Errorf("RevokeToken(unknown) = %v, want not_found", err)
	}
}

func TestTokensList(t *testing.T) {
	db := openTestDB(t, Options{})
	mustView(t, db, func(tx *Tx) error {
		toks, err := tx.Tokens()
		if err != nil || len(toks) != 0 {
			t.Errorf("Tokens on empty db = %v, %v", toks, err)
		}
		return nil
	})
	want := map[string]string{}
	for _, label := range []string{"a", "b", "c", "d"} {
		tok, _ := createToken(t, db, TokenSpec{Label: label, Kind: KindSession, SessionID: "ses_" + label})
		want[tok.KeyID] = label
	}
	mustView(t, db, func(tx *Tx) error {
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		if len(toks) != len(want) {
			t.Fatalf("%d tokens, want %d", len(toks), len(want))
		}
		if !slices.IsSortedFunc(toks, func(a, b Token) int { return strings.Compare(a.KeyID, b.KeyID) }) {
			t.Error("Tokens not in key id order")
		}
		for _, tok := range toks {
			if want[tok.KeyID] != tok.Label || tok.SessionID != "ses_"+tok.Label || tok.Kind != KindSession {
				t.Errorf("listed token %+v", tok)
			}
		}
		// What is listed is what may be shown: no salt, no hash.
		b, _ := json.Marshal(toks)
		if bytes.Contains(b, []byte(`"salt"`)) || bytes.Contains(b, []byte(`"hash"`)) {
			t.Errorf("listed tokens carry salt or hash: %s", b)
		}
		return nil
	})
}

func TestAuthorize(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var repoA, repoB string
	mustUpdate(t, db, func(tx *Tx) error {
		a, _, err := tx.RegisterRepository("a", "/src/a")
		if err != nil {
			return err
		}
		b, _, err := tx.RegisterRepository("b", "/src/b")
		repoA, repoB = a.ID, b.ID
		return err
	})
	const unregistered = "repo_00000000000000000000"
	const anyRepo = "(AuthorizeAny)"
	now := clock.Now()
	past, future := now.Add(-time.Minute), now.Add(time.Minute)
	g := func(c Capability, exp *time.Time, repos ...string) Grant {
		return Grant{Capability: c, Repositories: repos, ExpiresAt: exp}
	}

	for _, tc := range []struct {
		name   string
		grants []Grant
		cap    Capability
		repo   string
		want   Code
	}{
		{"no grants at all", nil, CapWorkClaim, repoA, CodeCapabilityMissing},
		{"only another capability", []Grant{g(CapWorkRead, nil, repoA)}, CapWorkClaim, repoA, CodeCapabilityMissing},
		{"missing wins over unregistered repo", []Grant{g(CapWorkRead, nil, "*")}, CapWorkClaim, unregistered, CodeCapabilityMissing},
		{"granted for A, used on A", []Grant{g(CapWorkClaim, nil, repoA)}, CapWorkClaim, repoA, ""},
		{"granted for A, used on B", []Grant{g(CapWorkClaim, nil, repoA)}, CapWorkClaim, repoB, CodeCapabilityScopeMismatch},
		{"granted for A and B in one grant", []Grant{g(CapWorkClaim, nil, repoA, repoB)}, CapWorkClaim, repoB, ""},
		{"granted for A, used on an unregistered repo", []Grant{g(CapWorkClaim, nil, repoA)}, CapWorkClaim, unregistered, CodeRepoNotRegistered},
		{"star grant on A", []Grant{g(CapWorkClaim, nil, "*")}, CapWorkClaim, repoA, ""},
		{"star grant on B", []Grant{g(CapWorkClaim, nil, AllRepositories)}, CapWorkClaim, repoB, ""},
		{"star grant on an unregistered repo", []Grant{g(CapWorkClaim, nil, "*")}, CapWorkClaim, unregistered, CodeRepoNotRegistered},
		{"star among ids", []Grant{g(CapWorkClaim, nil, repoA, "*")}, CapWorkClaim, repoB, ""},
		{"expired grant", []Grant{g(CapWorkClaim, &past, repoA)}, CapWorkClaim, repoA, CodeCapabilityExpired},
		{"grant expiring exactly now", []Grant{g(CapWorkClaim, &now, repoA)}, CapWorkClaim, repoA, CodeCapabilityExpired},
		{"grant expiring later", []Grant{g(CapWorkClaim, &future, repoA)}, CapWorkClaim, repoA, ""},
		{"expired star grant", []Grant{g(CapWorkClaim, &past, "*")}, CapWorkClaim, repoA, CodeCapabilityExpired},
		{"expired then live", []Grant{g(CapWorkClaim, &past, repoA), g(CapWorkClaim, nil, repoA)}, CapWorkClaim, repoA, ""},
		{"live then expired", []Grant{g(CapWorkClaim, nil, repoA), g(CapWorkClaim, &past, repoA)}, CapWorkClaim, repoA, ""},
		{"expired on A, live star", []Grant{g(CapWorkClaim, &past, repoA), g(CapWorkClaim, &future, "*")}, CapWorkClaim, repoA, ""},
		{"expired on A, live on B, used on A", []Grant{g(CapWorkClaim, &past, repoA), g(CapWorkClaim, nil, repoB)}, CapWorkClaim, repoA, CodeCapabilityExpired},
		{"expired on A, used on B", []Grant{g(CapWorkClaim, &past, repoA)}, CapWorkClaim, repoB, CodeCapabilityScopeMismatch},
		{"any repo: scoped grant", []Grant{g(CapStatusRead, nil, repoA)}, CapStatusRead, anyRepo, ""},
		{"any repo: star grant", []Grant{g(CapStatusRead, nil, "*")}, CapStatusRead, anyRepo, ""},
		{"any repo: only expired", []Grant{g(CapStatusRead, &past, repoA)}, CapStatusRead, anyRepo, CodeCapabilityExpired},
		{"any repo: expired and live", []Grant{g(CapStatusRead, &past, "*"), g(CapStatusRead, nil, repoB)}, CapStatusRead, anyRepo, ""},
		{"any repo: not granted", []Grant{g(CapWorkRead, nil, "*")}, CapStatusRead, anyRepo, CodeCapabilityMissing},
		{"admin is not implied by agent caps", []Grant{g(CapWorkRead, nil, "*"), g(CapWorkClaim, nil, "*")}, CapAdmin, anyRepo, CodeCapabilityMissing},
		// No repository is not "any repository": a caller that did not
		// resolve its object is refused, whatever the token holds.
		{"no repo: star grant", []Grant{g(CapWorkRead, nil, "*")}, CapWorkRead, "", CodeInternal},
		{"no repo: scoped grant", []Grant{g(CapWorkRead, nil, repoA)}, CapWorkRead, "", CodeInternal},
		{"every repo: star grant", []Grant{g(CapWorkRead, nil, "*")}, CapWorkRead, AllRepositories, ""},
		{"every repo: star among ids", []Grant{g(CapWorkRead, nil, repoA, "*")}, CapWorkRead, AllRepositories, ""},
		{"every repo: grants on A and B", []Grant{g(CapWorkRead, nil, repoA), g(CapWorkRead, nil, repoB)}, CapWorkRead, AllRepositories, CodeCapabilityScopeMismatch},
		{"every repo: expired star", []Grant{g(CapWorkRead, &past, "*"), g(CapWorkRead, nil, repoA)}, CapWorkRead, AllRepositories, CodeCapabilityExpired},
		{"every repo: not granted", []Grant{g(CapWorkClaim, nil, "*")}, CapWorkRead, AllRepositories, CodeCapabilityMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := Token{KeyID: "0123456789abcdef", Grants: tc.grants}
			mustView(t, db, func(tx *Tx) error {
				err := tx.AuthorizeAny(tok, tc.cap)
				if tc.repo != anyRepo {
					err = tx.Authorize(tok, tc.cap, tc.repo)
				}
				if got := CodeOf(err); got != tc.want {
					t.Errorf("Authorize(%s, %q) code %q (%v), want %q", tc.cap, tc.repo, got, err, tc.want)
				}
				var d *Denial
				if err != nil && !errors.As(err, &d) {
					t.Errorf("denial %T is not a *Denial", err)
				}
				return nil
			})
		})
	}
}

// An Authenticate+Authorize round trip on stored grants, as the registry does
// it, including a grant expiring while the token lives on.
func TestAuthorizeStoredToken(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var repo Repository
	mustUpdate(t, db, func(tx *Tx) error {
		var err error
		repo, _, err = tx.RegisterRepository("", "/src/x")
		return err
	})
	soon := clock.Now().Add(time.Minute)
	_, raw := createToken(t, db, TokenSpec{Kind: KindSession, Grants: []Grant{
		{Capability: CapWorkClaim, Repositories: []string{repo.ID}, ExpiresAt: &soon},
		{Capability: CapStatusRead, Repositories: []string{repo.ID}},
	}})
	check := func(c Capability, want Code) {
		t.Helper()
		mustView(t, db, func(tx *Tx) error {
			tok, err := tx.Authenticate(raw)
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if got := CodeOf(tx.Authorize(tok, c, repo.ID)); got != want {
				t.Errorf("Authorize(%s) = %q, want %q", c, got, want)
			}
			return nil
		})
	}
	check(CapWorkClaim, "")
	check(CapStatusRead, "")
	clock.Add(2 * time.Minute)
	check(CapWorkClaim, CodeCapabilityExpired)
	check(CapStatusRead, "")
}

func TestCodeOfAndDenial(t *testing.T) {
	d := Deny(CodeTokenInvalid, "token %s not recognised", "abc")
	if d.Error() != "token_invalid: token abc not recognised" {
		t.Errorf("Error() = %q", d.Error())
	}
	for _, tc := range []struct {
		err  error
		want Code
	}{
		{nil, ""},
		{d, CodeTokenInvalid},
		{errors.Join(errors.New("x"), Deny(CodeRepoNotRegistered, "r")), CodeRepoNotRegistered},
		{wrapErr(Deny(CodeCapabilityMissing, "c")), CodeCapabilityMissing},
		{errors.New("plain"), CodeInternal},
	} {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// The exact strings of SPEC §3.
	for code, want := range map[Code]string{
		CodeTokenMissing: "token_missing", CodeTokenMalformed: "token_malformed",
		CodeTokenInvalid: "token_invalid", CodeTokenRevoked: "token_revoked",
		CodeTokenExpired: "token_expired", CodeCapabilityMissing: "capability_missing",
		CodeCapabilityScopeMismatch: "capability_scope_mismatch", CodeCapabilityExpired: "capability_expired",
		CodeRepoNotRegistered: "repo_not_registered", CodeMethodUnknown: "method_unknown",
		CodeToolHidden: "tool_hidden",
	} {
		if string(code) != want {
			t.Errorf("code %q, spec says %q", code, want)
		}
	}
}

func wrapErr(err error) error { return &wrapped{err} }

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

// FuzzParseToken: any bearer value is either refused with one of the
// token codes or splits into a 16-hex key id and a 43-character base64url
// secret that put back together give the input.
func FuzzParseToken(f *testing.F) {
	raw, _, _ := NewTokenSecret()
	for _, s := range []string{"", raw, "sbt_", "sbt__", "sbt_0123456789abcdef_", raw + "x", strings.ToUpper(raw), "Bearer " + raw, "sbt_0123456789abcdef_" + strings.Repeat("é", 22)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keyID, secret, err := ParseToken(s)
		if err != nil {
			switch CodeOf(err) {
			case CodeTokenMissing, CodeTokenMalformed:
			default:
				t.Fatalf("ParseToken(%q): code %s", s, CodeOf(err))
			}
			if strings.Contains(err.Error(), s) && len(s) > 8 {
				t.Fatalf("the refusal repeats the token: %v", err)
			}
			return
		}
		if len(keyID) != 16 || len(secret) != 43 || "sbt_"+keyID+"_"+secret != s {
			t.Fatalf("ParseToken(%q) = %q, %q", s, keyID, secret)
		}
	})
}

func TestScope(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	past := clock.Now().Add(-time.Minute)
	for _, tc := range []struct {
		name   string
		grants []Grant
		want   Scope
	}{
		{"none", nil, Scope{}},
		{"other capability", []Grant{{Capability: CapWorkClaim, Repositories: []string{"*"}}}, Scope{}},
		{"two repos, one twice", []Grant{
			{Capability: CapWorkRead, Repositories: []string{"repo_a", "repo_b"}},
			{Capability: CapWorkRead, Repositories: []string{"repo_b"}},
		}, Scope{Repositories: []string{"repo_a", "repo_b"}}},
		{"star wins", []Grant{
			{Capability: CapWorkRead, Repositories: []string{"repo_a"}},
			{Capability: CapWorkRead, Repositories: []string{"*"}},
		}, Scope{All: true}},
		{"expired star left out", []Grant{
			{Capability: CapWorkRead, Repositories: []string{"*"}, ExpiresAt: &past},
			{Capability: CapWorkRead, Repositories: []string{"repo_a"}},
		}, Scope{Repositories: []string{"repo_a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustView(t, db, func(tx *Tx) error {
				got := tx.Scope(Token{Grants: tc.grants}, CapWorkRead)
				if got.All != tc.want.All || !slices.Equal(got.Repositories, tc.want.Repositories) {
					t.Errorf("Scope = %+v, want %+v", got, tc.want)
				}
				return nil
			})
		})
	}
}
