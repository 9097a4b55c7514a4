package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// maxCached bounds each decoded-record cache. Past it a cache is dropped
// whole rather than managed: the records in use at any time are few (the
// client token, one token and one session per live agent), so they are back
// after one decode each.
const maxCached = 4096

// decodedCache holds records decoded from their stored JSON, by key, so that
// the lookups every call makes (its token, its session) need not decode
// JSON again.
//
// An entry is used only when its bytes equal the value the current
// transaction reads, so it is never trusted for anything it remembers about
// commits. An entry filled inside an Update that then rolled back holds
// bytes the database no longer has: the next lookup reads the committed
// bytes, misses and replaces it. A rolled-back write can therefore never
// serve a stale record, nor can a View and an Update that race to fill the
// same key: each compares against what its own transaction sees.
//
// Entries are never modified once in the map, only replaced, so they are
// read without holding mu; what leaves the cache is a copy made by clone,
// which the caller may change.
type decodedCache[T any] struct {
	what    string                      // "token", "session": for errors
	clone   func(T) T                   // a copy sharing nothing a caller could write through
	mu      sync.Mutex                  // guards entries
	entries map[string]*decodedEntry[T] // nil until the first fill
}

type decodedEntry[T any] struct {
	raw []byte // the stored value, copied out of its transaction
	val T      // raw decoded; handed out only through clone
}

// decode returns the record stored as v under key, decoding v only if the
// cache holds no decoding of exactly these bytes.
//
// scan says the lookup is one of a walk over the whole bucket. A scan adds
// entries only while there is room: dropping the cache as it fills would,
// on a bucket past the bound (session tokens accumulate), drop it again every
// maxCached records and leave it holding the records last in key order
// rather than those in use.
func (c *decodedCache[T]) decode(key string, v []byte, scan bool) (T, error) {
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e != nil && bytes.Equal(e.raw, v) {
		return c.clone(e.val), nil
	}
	// Decode outside the lock: concurrent Views should not wait on each
	// other's JSON.
	e = &decodedEntry[T]{raw: bytes.Clone(v)}
	if err := json.Unmarshal(e.raw, &e.val); err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s %s: %w", c.what, key, err)
	}
	c.put(key, e, scan)
	return c.clone(e.val), nil
}

// stored notes that val was just encoded as v and written under key, so
// that the next lookup of key (in this transaction or, once it commits, a
// later one) finds it decoded. v must not change afterwards: bbolt only
// reads it, and so does the cache.
func (c *decodedCache[T]) stored(key string, v []byte, val T) {
	c.put(key, &decodedEntry[T]{raw: v, val: c.clone(val)}, false)
}

// put makes e the entry for key, dropping the cache first when it is full,
// or, for a scan, leaving it as it is.
func (c *decodedCache[T]) put(key string, e *decodedEntry[T], scan bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, replace := c.entries[key]; !replace && len(c.entries) >= maxCached {
		if scan {
			return
		}
		c.entries = nil // drop the map whole: clear would keep its memory
	}
	if c.entries == nil {
		c.entries = make(map[string]*decodedEntry[T])
	}
	c.entries[key] = e
}

// len is the number of entries (for tests).
func (c *decodedCache[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// cloneTokenRecord returns a copy of rec that the caller may change. Salt
// and Hash are shared with the cache: they never leave the package and
// nothing in it writes to them.
func cloneTokenRecord(rec tokenRecord) tokenRecord {
	rec.Token = cloneToken(rec.Token)
	return rec
}

// cloneSession returns a copy of s sharing no pointer with it.
func cloneSession(s Session) Session {
	s.EndedAt = clonePtr(s.EndedAt)
	s.ExitCode = clonePtr(s.ExitCode)
	s.LastReportAt = clonePtr(s.LastReportAt)
	s.LastReport = clonePtr(s.LastReport) // a Report holds no pointer
	s.Workspace = clonePtr(s.Workspace)   // nor does a Workspace
	return s
}

// clonePtr returns a pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneToken returns a copy of t that shares nothing a caller could write
// through with t: Grants, each grant's Repositories and every *time.Time
// are fresh (strings are immutable, so sharing them is safe). The token
// cache hands out only such copies, rather than values callers must promise
// not to alias: callers edit what they get (TouchToken sets LastUsedAt, a
// handler may pass Grants on into a new TokenSpec that is then stored), and
// an edit must reach the caller's copy alone, never the cache or another
// caller.
//
// The copy costs three allocations however many grants t has: one for the
// grants, one for all their repository lists, one for all the times. Each
// repository list is capped at its own length, so appending to one cannot
// overwrite the next.
func cloneToken(t Token) Token {
	var nTimes, nRepos int
	for _, p := range [...]*time.Time{t.ExpiresAt, t.RevokedAt, t.LastUsedAt} {
		if p != nil {
			nTimes++
		}
	}
	for _, g := range t.Grants {
		nRepos += len(g.Repositories)
		if g.ExpiresAt != nil {
			nTimes++
		}
	}
	times := timeArena(make([]time.Time, 0, nTimes))
	t.ExpiresAt = times.dup(t.ExpiresAt)
	t.RevokedAt = times.dup(t.RevokedAt)
	t.LastUsedAt = times.dup(t.LastUsedAt)
	if t.Grants != nil { // keep nil and empty apart: they encode differently
		grants := make([]Grant, len(t.Grants))
		repos := make([]string, 0, nRepos)
		for i, g := range t.Grants {
			if g.Repositories != nil {
				start := len(repos)
				repos = append(repos, g.Repositories...)
				g.Repositories = repos[start:len(repos):len(repos)]
			}
			g.ExpiresAt = times.dup(g.ExpiresAt)
			grants[i] = g
		}
		t.Grants = grants
	}
	return t
}

// timeArena hands out *time.Time from one backing array. It is sized up
// front; were it ever too small, append would move on to a new array and the
// pointers already handed out would keep the old one alive, so a miscount
// costs an allocation, never a shared time.
type timeArena []time.Time

func (a *timeArena) dup(p *time.Time) *time.Time {
	if p == nil {
		return nil
	}
	*a = append(*a, *p)
	return &(*a)[len(*a)-1]
}

// auditTail is the record AppendAudit wrote last.
type auditTail struct {
	seq  uint64
	raw  []byte // the value given to Put; bbolt only reads it, and so do we
	hash string
}

// setAuditTail records the append just written.
func (db *DB) setAuditTail(t auditTail) {
	db.auditMu.Lock()
	db.auditTail = t
	db.auditMu.Unlock()
}

// prevAuditHash returns the hash of the record stored as v under k, the
// audit log's last key, decoding v only when it is not the record this DB
// appended last.
//
// Matching the key alone would be enough, even across rolled-back
// transactions. Key seq is written only by the append that NextSequence
// gave seq to, and that append makes itself the tail as it writes. bbolt
// rolls back the sequence together with the keys, so seq may be handed out
// again after a rollback, but only to a later append, which writes the key
// anew and becomes the tail; once a write of seq commits, the sequence has
// passed seq for good and no append writes that key again. So when the last
// key is the tail's seq, the record there is the latest write of that key
// (committed, or earlier in this same transaction) and the tail holds its
// hash. When the transaction that wrote the tail rolled back instead, its
// key is gone, the last key is smaller, and the record is decoded.
//
// That argument leans on every audit write going through AppendAudit.
// Comparing the bytes as well removes the assumption for the price of a
// memcmp: equal bytes decode to the same hash whatever wrote them, so a
// record rewritten in place by other code, or by hand with the tamper tests'
// tools, costs a decode and never chains a record to a hash not stored.
func (db *DB) prevAuditHash(k, v []byte) (string, error) {
	db.auditMu.Lock()
	t := db.auditTail
	db.auditMu.Unlock()
	if t.raw != nil && len(k) == 8 && binary.BigEndian.Uint64(k) == t.seq && bytes.Equal(v, t.raw) {
		return t.hash, nil
	}
	var prev AuditRecord
	if err := json.Unmarshal(v, &prev); err != nil {
		return "", fmt.Errorf("decode audit record %x: %w", k, err)
	}
	return prev.Hash, nil
}
