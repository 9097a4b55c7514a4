package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// richToken creates a token with every pointer and slice of Token set, so
// that aliasing anywhere in it would show.
func richToken(t *testing.T, db *DB, clock *fakeClock) (Token, string) {
	t.Helper()
	exp := clock.Now().Add(time.Hour)
	grantExp := clock.Now().Add(time.Minute)
	return createToken(t, db, TokenSpec{
		Label:     "rich",
		Kind:      KindSession,
		SessionID: "ses_1",
		ExpiresAt: &exp,
		Grants: []Grant{
			{Capability: CapWorkRead, Repositories: []string{"repo_a", "repo_b"}, ExpiresAt: &grantExp},
			{Capability: CapWorkClaim, Repositories: []string{"repo_c"}},
			{Capability: CapStatusRead, Repositories: []string{AllRepositories}},
		},
	})
}

// scribble writes through every slice and pointer tok holds, as a careless
// caller might.
func scribble(tok *Token) {
	for i := range tok.Grants {
		g := &tok.Grants[i]
		g.Capability = CapAdmin
		for j := range g.Repositories {
			g.Repositories[j] = "scribbled"
		}
		// Appending within capacity would write into whatever follows.
		g.Repositories = append(g.Repositories, "appended")
		if g.ExpiresAt != nil {
			*g.ExpiresAt = time.Time{}
		}
	}
	tok.Grants = append(tok.Grants, Grant{Capability: CapAdmin})
	for _, p := range []*time.Time{tok.ExpiresAt, tok.RevokedAt, tok.LastUsedAt} {
		if p != nil {
			*p = time.Time{}
		}
	}
}

func TestTokenCacheHandsOutUnaliasedCopies(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	tok, raw := richToken(t, db, clock)
	mustUpdate(t, db, func(tx *Tx) error { return tx.TouchToken(tok.KeyID) })
	want, _, _ := getToken(t, db, tok.KeyID)
	if want.LastUsedAt == nil || want.Grants[0].ExpiresAt == nil || want.ExpiresAt == nil {
		t.Fatalf("setup: token lacks a time: %+v", want)
	}

	// Every way a token leaves the package, twice each: the first may
	// decode, the second comes from the cache. Scribbling over any of them
	// must leave the next one as stored.
	lookups := map[string]func(tx *Tx) (Token, error){
		"Token": func(tx *Tx) (Token, error) {
			got, _, err := tx.Token(tok.KeyID)
			return got, err
		},
		"TokenByKeyID": func(tx *Tx) (Token, error) { return tx.TokenByKeyID(tok.KeyID) },
		"Authenticate": func(tx *Tx) (Token, error) { return tx.Authenticate(raw) },
		"Tokens": func(tx *Tx) (Token, error) {
			toks, err := tx.Tokens()
			if err != nil || len(toks) != 1 {
				return Token{}, fmt.Errorf("Tokens = %d tokens, %v", len(toks), err)
			}
			return toks[0], nil
		},
	}
	lookUnaliased(t, db, lookups, want, scribble)
	if got, _, _ := getToken(t, db, tok.KeyID); !reflect.DeepEqual(got, want) {
		t.Errorf("after scribbling: %+v, want %+v", got, want)
	}
	// The record was decoded once and then served from the cache.
	mustView(t, db, func(tx *Tx) error {
		db.tokens.mu.Lock()
		e := db.tokens.entries[tok.KeyID]
		db.tokens.mu.Unlock()
		if e == nil || !bytes.Equal(e.raw, tx.tx.Bucket(bucketTokens).Get([]byte(tok.KeyID))) {
			t.Errorf("no cache entry for the stored bytes: %+v", e)
		}
		return nil
	})
}

func getToken(t *testing.T, db *DB, keyID string) (Token, bool, error) {
	t.Helper()
	var tok Token
	var ok bool
	err := db.View(context.Background(), func(tx *Tx) error {
		var err error
		tok, ok, err = tx.Token(keyID)
		return err
	})
	return tok, ok, err
}

func TestCloneToken(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, tc := range []struct {
		name string
		tok  Token
	}{
		{"zero", Token{}},
		{"empty grants", Token{Grants: []Grant{}}},
		{"nil and empty repositories", Token{Grants: []Grant{{Capability: CapWorkRead}, {Capability: CapWorkClaim, Repositories: []string{}}}}},
		{"everything", Token{
			KeyID: "k", Label: "l", Kind: KindClient, SessionID: "s", CreatedAt: at,
			ExpiresAt: &at, RevokedAt: &at, LastUsedAt: &at, Ephemeral: true, Imported: true,
			Grants: []Grant{
				{Capability: CapWorkRead, Repositories: []string{"a", "b"}, ExpiresAt: &at},
				{Capability: CapWorkClaim, Repositories: []string{"c"}},
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// reflect.DeepEqual tells nil from empty, which encode
			// differently.
			orig, _ := json.Marshal(tc.tok)
			c := cloneToken(tc.tok)
			if !reflect.DeepEqual(c, tc.tok) {
				t.Fatalf("clone = %+v, want %+v", c, tc.tok)
			}
			scribble(&c)
			if now, _ := json.Marshal(tc.tok); !bytes.Equal(now, orig) {
				t.Errorf("scribbling on the clone changed the original:\n%s\nwas\n%s", now, orig)
			}
		})
	}

	// Appending to one grant's repositories must not reach the next one's,
	// though they share a backing array.
	c := cloneToken(Token{Grants: []Grant{
		{Repositories: []string{"a"}},
		{Repositories: []string{"b"}},
	}})
	_ = append(c.Grants[0].Repositories, "x")
	if c.Grants[1].Repositories[0] != "b" {
		t.Errorf("append to grant 0 overwrote grant 1: %v", c.Grants[1].Repositories)
	}
	// And the times handed out are distinct.
	c = cloneToken(Token{ExpiresAt: &at, LastUsedAt: &at})
	*c.ExpiresAt = time.Time{}
	if !c.LastUsedAt.Equal(at) {
		t.Error("the clone's times share memory")
	}
}

// An entry filled inside an Update that rolls back must not outlive it: the
// cache is checked against the bytes each transaction reads.
func TestTokenCacheAfterRollback(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	tok, raw := createToken(t, db, TokenSpec{Label: "t"})
	if _, err := authenticate(db, raw); err != nil { // cache the committed record
		t.Fatal(err)
	}
	clock.Add(time.Minute)
	boom := errors.New("boom")
	err := db.Update(context.Background(), func(tx *Tx) error {
		if _, err := tx.RevokeToken(tok.KeyID); err != nil {
			return err
		}
		if err := tx.TouchToken(tok.KeyID); err != nil {
			return err
		}
		// Reading it back fills the cache with the uncommitted record.
		if _, err := tx.Authenticate(raw); CodeOf(err) != CodeTokenRevoked {
			t.Errorf("inside the Update, Authenticate = %v, want token_revoked", err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	got, err := authenticate(db, raw)
	if err != nil {
		t.Fatalf("after the rollback, Authenticate = %v; the revocation leaked", err)
	}
	if got.RevokedAt != nil || got.LastUsedAt != nil {
		t.Errorf("after the rollback, token = %+v", got)
	}
}

// Bytes written by anything, not only by this package's writers, are
// decoded afresh.
func TestTokenCacheSeesRawWrites(t *testing.T) {
	db := openTestDB(t, Options{})
	tok, _ := createToken(t, db, TokenSpec{Label: "before"})
	if _, _, err := getToken(t, db, tok.KeyID); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		b := tx.tx.Bucket(bucketTokens)
		var rec tokenRecord
		if err := json.Unmarshal(b.Get([]byte(tok.KeyID)), &rec); err != nil {
			return err
		}
		rec.Label = "after"
		v, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return b.Put([]byte(tok.KeyID), v)
	})
	if got, _, _ := getToken(t, db, tok.KeyID); got.Label != "after" {
		t.Errorf("Label = %q after a raw write, want %q", got.Label, "after")
	}
	mustUpdate(t, db, func(tx *Tx) error {
		return tx.tx.Bucket(bucketTokens).Put([]byte(tok.KeyID), []byte("not json"))
	})
	if _, _, err := getToken(t, db, tok.KeyID); err == nil {
		t.Error("a record that is not JSON was served from the cache")
	}
}

func TestTokenCacheBound(t *testing.T) {
	db := openTestDB(t, Options{})
	v, err := json.Marshal(tokenRecord{Token: Token{Label: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	size := db.tokens.len
	key := func(i int) string { return fmt.Sprintf("%016x", i) }
	for i := range maxCached {
		if _, err := db.tokens.decode(key(i), v, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := size(); n != maxCached {
		t.Fatalf("%d entries, want %d", n, maxCached)
	}
	// Replacing an entry in a full cache keeps it.
	if _, err := db.tokens.decode(key(0), []byte(`{"label":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != maxCached {
		t.Fatalf("after a replacement: %d entries, want %d", n, maxCached)
	}
	// A scan leaves a full cache as it is.
	if _, err := db.tokens.decode(key(maxCached), v, true); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != maxCached {
		t.Fatalf("after a scan past the bound: %d entries, want %d", n, maxCached)
	}
	// A lookup past the bound drops it and starts again.
	if _, err := db.tokens.decode(key(maxCached), v, false); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 1 {
		t.Fatalf("after a lookup past the bound: %d entries, want 1", n)
	}
}

// Readers and a writer at once, for the race detector, with the readers
// checking that what they get is always one of the states committed.
func TestTokenCacheConcurrent(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	tok, raw := richToken(t, db, clock)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := db.View(context.Background(), func(tx *Tx) error {
					got, err := tx.Authenticate(raw)
					if err != nil {
						return err
					}
					if got.Label != "rich" || len(got.Grants) != 3 || got.Grants[0].Repositories[1] != "repo_b" {
						return fmt.Errorf("token = %+v", got)
					}
					scribble(&got)
					_, err = tx.Tokens()
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 50 {
		clock.Add(time.Second)
		mustUpdate(t, db, func(tx *Tx) error { return tx.TouchToken(tok.KeyID) })
	}
	close(stop)
	wg.Wait()
	if got, _, _ := getToken(t, db, tok.KeyID); got.LastUsedAt == nil || !got.LastUsedAt.Equal(clock.Now()) {
		t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, clock.Now())
	}
}

// readAudit returns the whole log, oldest first.
func readAudit(t *testing.T, db *DB) []AuditRecord {
	t.Helper()
	var out []AuditRecord
	mustView(t, db, func(tx *Tx) error {
		return tx.tx.Bucket(bucketAudit).ForEach(func(_, v []byte) error {
			var r AuditRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out
}

// checkChain verifies the log and that it holds n records.
func checkChain(t *testing.T, db *DB, n int) {
	t.Helper()
	if v, err := verify(db); err != nil || v.Records != n || v.LastSeq != uint64(n) {
		t.Fatalf("VerifyAudit = %+v, %v; want %d records", v, err, n)
	}
}

// Rolled-back appends, the way the registry's group commit retries a batch
// without the call that failed: fewer, as many or more records than the
// rolled-back batch, so that the retry's keys fall below, on and above the
// tail the rolled-back batch left.
func TestAppendAuditAfterRollback(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct{ rolledBack, retried int }{
		{1, 1}, {3, 1}, {3, 3}, {1, 3}, {5, 0},
	} {
		t.Run(fmt.Sprintf("%d then %d", tc.rolledBack, tc.retried), func(t *testing.T) {
			db := openTestDB(t, Options{})
			committed := appendN(t, db, 4)
			err := db.Update(context.Background(), func(tx *Tx) error {
				for i := range tc.rolledBack {
					if err := tx.AppendAudit(sampleRecord(100 + i)); err != nil {
						return err
					}
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatal(err)
			}
			checkChain(t, db, 4)
			var retried []*AuditRecord
			mustUpdate(t, db, func(tx *Tx) error {
				for i := range tc.retried {
					r := sampleRecord(200 + i)
					if err := tx.AppendAudit(r); err != nil {
						return err
					}
					retried = append(retried, r)
				}
				return nil
			})
			if len(retried) > 0 && retried[0].PrevHash != committed[3].Hash {
				t.Errorf("first append after the rollback chains to %q, want the last committed record's %q",
					retried[0].PrevHash, committed[3].Hash)
			}
			checkChain(t, db, 4+tc.retried)
			// And the log goes on from there.
			appendN(t, db, 2)
			checkChain(t, db, 4+tc.retried+2)
		})
	}
}

// Many appends in one Update and across Updates, a rollback among them, and
// a reopen, which starts the DB with no tail.
func TestAppendAuditManyAcrossUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	appendBatch := func(db *DB, size int, fail bool) {
		t.Helper()
		err := db.Update(context.Background(), func(tx *Tx) error {
			for range size {
				if err := tx.AppendAudit(sampleRecord(n)); err != nil {
					return err
				}
				n++
			}
			if fail {
				n -= size
				return errRollback
			}
			return nil
		})
		if err != nil && !(fail && errors.Is(err, errRollback)) {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		appendBatch(db, 40, false)
		appendBatch(db, 7, i%2 == 0)
		appendBatch(db, 1, false)
	}
	checkChain(t, db, n)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	appendBatch(db, 40, false)
	checkChain(t, db, n)
	recs := readAudit(t, db)
	for i := 1; i < len(recs); i++ {
		if recs[i].PrevHash != recs[i-1].Hash {
			t.Fatalf("record %d chains to %q, record %d's hash is %q", recs[i].Seq, recs[i].PrevHash, recs[i-1].Seq, recs[i-1].Hash)
		}
	}
}

var errRollback = errors.New("roll back")

// A last record rewritten by something other than AppendAudit, with its
// hash recomputed so that the log still verifies, is what the next record
// chains to: the tail is used only when the stored bytes are the ones it
// wrote.
func TestAppendAuditChainsToStoredRecord(t *testing.T) {
	db := openTestDB(t, Options{})
	recs := appendN(t, db, 3)
	last := recs[2]
	last.Outcome = "rewritten"
	last.Hash = chainHash(&last)
	tamper(t, db, func(t *testing.T, tx *Tx, _ map[uint64]AuditRecord) { putRaw(t, tx, 3, last) })
	r := sampleRecord(3)
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendAudit(r) })
	if r.PrevHash != last.Hash {
		t.Errorf("appended record chains to %q, want the stored record's %q", r.PrevHash, last.Hash)
	}
	checkChain(t, db, 4)

	// With the bytes untouched, the tail answers without a decode: plant a
	// wrong hash in it and the next record carries it.
	db.auditMu.Lock()
	tail := db.auditTail
	db.auditMu.Unlock()
	if tail.seq != 4 || tail.hash != r.Hash {
		t.Fatalf("tail = {%d %q}, want {4 %q}", tail.seq, tail.hash, r.Hash)
	}
	db.setAuditTail(auditTail{seq: tail.seq, raw: tail.raw, hash: "planted"})
	r = sampleRecord(4)
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendAudit(r) })
	if r.PrevHash != "planted" {
		t.Errorf("append decoded the record the tail describes (prev_hash %q)", r.PrevHash)
	}
}

// Sessions come out of the cache as copies: scribbling over every pointer
// of one leaves the next lookup as stored, through each way a session
// leaves the package; and a write that rolls back is never served.
func TestSessionCache(t *testing.T) {
	db := openTestDB(t, Options{})
	var id string
	mustUpdate(t, db, func(tx *Tx) error {
		s, err := tx.CreateSession(SessionSpec{Kind: SessionExternal})
		if err != nil {
			return err
		}
		id = s.ID
		if _, _, err := tx.AddReport(id, ReportHeartbeat, "working", ""); err != nil {
			return err
		}
		if _, err := tx.SetSessionWorkspace(id, Workspace{Path: "/data/worktrees/r/s", Branch: "switchboard/s", BaseBranch: "main", BaseCommit: strings.Repeat("a", 40)}); err != nil {
			return err
		}
		code := 3
		_, err = tx.EndSession(id, SessionEnded, &code, "done")
		return err
	})
	// want is decoded here, apart from the cache, so that it cannot share
	// what the lookups hand out.
	var want Session
	mustView(t, db, func(tx *Tx) error {
		return json.Unmarshal(tx.tx.Bucket(bucketSessions).Get([]byte(id)), &want)
	})
	if want.EndedAt == nil || want.ExitCode == nil || want.LastReport == nil || want.LastReportAt == nil || want.Workspace == nil {
		t.Fatalf("setup: session lacks a pointer field: %+v", want)
	}
	scribble := func(s *Session) {
		*s.EndedAt = time.Unix(1, 0)
		*s.ExitCode = 99
		*s.LastReportAt = time.Unix(2, 0)
		s.LastReport.Text = "scribbled"
		s.Workspace.Path = "/scribbled"
		s.EndReason = "scribbled"
	}
	lookups := map[string]func(tx *Tx) (Session, error){
		"Session": func(tx *Tx) (Session, error) { return tx.Session(id) },
		"Sessions": func(tx *Tx) (Session, error) {
			ss, err := tx.Sessions(SessionFilter{})
			if err != nil || len(ss) != 1 {
				return Session{}, fmt.Errorf("Sessions = %d sessions, %v", len(ss), err)
			}
			return ss[0], nil
		},
	}
	lookUnaliased(t, db, lookups, want, scribble)

	// A report written in a transaction that rolls back leaves the
	// committed session to the next lookup, though the cache saw the write.
	errRollback := errors.New("roll back")
	var live string
	mustUpdate(t, db, func(tx *Tx) error {
		s, err := tx.CreateSession(SessionSpec{Kind: SessionExternal})
		live = s.ID
		return err
	})
	err := db.Update(context.Background(), func(tx *Tx) error {
		if _, _, err := tx.AddReport(live, ReportHeartbeat, "lost", ""); err != nil {
			return err
		}
		if s, err := tx.Session(live); err != nil || s.LastReport == nil || s.LastReport.Text != "lost" {
			t.Errorf("inside the transaction: %+v, %v", s, err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update = %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		if s, err := tx.Session(live); err != nil || s.LastReport != nil {
			t.Errorf("after the rollback: %+v, %v", s, err)
		}
		return nil
	})
}

// lookUnaliased runs every lookup twice (the first may decode, the second
// comes from the cache), checks each returns want, and scribbles over what
// it got: an aliased copy would change the cache, and the next lookup.
func lookUnaliased[T any](t *testing.T, db *DB, lookups map[string]func(*Tx) (T, error), want T, scribble func(*T)) {
	t.Helper()
	for range 2 {
		for name, lookup := range lookups {
			mustView(t, db, func(tx *Tx) error {
				got, err := lookup(tx)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s = %+v, want %+v", name, got, want)
				}
				scribble(&got)
				return nil
			})
		}
	}
}
