package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// Work packets (SPEC §5). The buckets, under the tree drawn in schema.go:
//
//	packets/            <pkt_id> -> Packet JSON (the record; the rest index it)
//	packet_order/       <seq u64 BE> -> pkt_id                      every packet
//	packet_queue/       <repo_id> 0x00 <^prio u64 BE> <seq u64 BE> -> pkt_id
//	                      queued packets only
//	lease_expiry/       <expiry unix-nanos u64 BE> <pkt_id> -> lease_id
//	                      leased (claimed, in_progress) packets only
//	leases_by_session/  <ses_id> 0x00 <pkt_id> -> lease_id      leased only
//	packet_counts/      <state> -> count u64 BE
//	artifacts/          <pkt_id> 0x00 <name> -> Artifact JSON, content included
//
// seq is the packets bucket's sequence, taken at creation: it is the
// packet's age. Priorities are stored sign-flipped and inverted, so that
// a cursor's First within a repository's prefix is the highest priority,
// then the oldest. Times are stored sign-flipped, so byte order is time
// order. Ids and names never contain 0x00 (checked where they enter), so
// the separator cannot be forged.
//
// Every write of a packet goes through savePacket, which moves the index
// entries from what the packet was to what it is: the indexes are exactly
// what State and Lease say (checkWorkIndexes in the tests holds them to it).
var (
	bucketPackets         = []byte("packets")
	bucketPacketOrder     = []byte("packet_order")
	bucketPacketQueue     = []byte("packet_queue")
	bucketLeaseExpiry     = []byte("lease_expiry")
	bucketLeasesBySession = []byte("leases_by_session")
	bucketPacketCounts    = []byte("packet_counts")
	bucketArtifacts       = []byte("artifacts")

	workBuckets = [][]byte{
		bucketPackets, bucketPacketOrder, bucketPacketQueue, bucketLeaseExpiry,
		bucketLeasesBySession, bucketPacketCounts, bucketArtifacts,
	}
)

// PacketState is where a packet stands in the workflow.
type PacketState string

const (
	PacketQueued     PacketState = "queued"      // waiting for a claim
	PacketClaimed    PacketState = "claimed"     // leased, not yet acknowledged
	PacketInProgress PacketState = "in_progress" // leased and acknowledged
	PacketInReview   PacketState = "in_review"   // completed, waiting for a verdict
	PacketDone       PacketState = "done"        // terminal
	PacketFailed     PacketState = "failed"      // terminal until an operator requeues it
	PacketCancelled  PacketState = "cancelled"   // terminal until an operator requeues it
)

// packetStates lists every state, in workflow order.
var packetStates = []PacketState{
	PacketQueued, PacketClaimed, PacketInProgress, PacketInReview,
	PacketDone, PacketFailed, PacketCancelled,
}

// PacketStates returns every state, in workflow order.
func PacketStates() []PacketState { return slices.Clone(packetStates) }

// Valid reports whether s is one of the states above.
func (s PacketState) Valid() bool { return slices.Contains(packetStates, s) }

// Terminal reports whether nothing but an operator's requeue moves a packet
// out of s.
func (s PacketState) Terminal() bool {
	return s == PacketDone || s == PacketFailed || s == PacketCancelled
}

// leased reports whether a packet in s holds a lease.
func (s PacketState) leased() bool { return s == PacketClaimed || s == PacketInProgress }

// Limits on what a packet and an artifact may carry.
const (
	// MaxInlineArtifact is the largest inline artifact content, in bytes.
	MaxInlineArtifact = 1 << 20
	// MaxLease is the longest lease a claim or an ack may ask for.
	MaxLease = 24 * time.Hour
	// DefaultMaxAttempts is a packet's MaxAttempts when its spec gives none.
	DefaultMaxAttempts = 3
	// maxPacketAttempts bounds MaxAttempts.
	maxPacketAttempts = 100
	// maxPacketHistory is how many transitions a packet keeps: the newest ones.
	// The audit log and the trace keep the full story; the history is a
	// summary for the GUI, and a packet bounced by many expiries must not
	// grow without bound.
	maxPacketHistory = 32

	maxPacketTitle        = 1000
	maxPacketInstructions = 1 << 20
	maxWorkText           = 64 << 10 // summary, review notes
	maxTransitionReason   = 1000     // a transition's reason is cut to this
	maxArtifactName       = 200      // artifact name
	maxArtifactKind       = 100      // artifact kind
	maxPacketListItems    = 100      // expected artifacts, write-scope globs
	maxWorkID             = 200      // session ids and the like
)

// ExpectedArtifact is an artifact a packet must have before it completes.
type ExpectedArtifact struct {
	Name string `json:"name"`
	Kind string `json:"kind,omitempty"`
}

// Lease is a session's exclusive, expiring hold on a packet. Its id changes
// at every claim and at no other time: it fences a session that lost the
// packet from touching it again.
type Lease struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	ClaimedAt time.Time `json:"claimed_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Transition is one entry of a packet's history.
type Transition struct {
	At        time.Time   `json:"at"`
	From      PacketState `json:"from,omitempty"` // "" for the creation
	To        PacketState `json:"to"`
	Reason    string      `json:"reason,omitempty"`
	SessionID string      `json:"session_id,omitempty"`
}

// Packet is a unit of work for an agent in one repository.
type Packet struct {
	ID                string             `json:"id"`
	RepositoryID      string             `json:"repository_id"`
	Title             string             `json:"title"`
	Instructions      string             `json:"instructions"`
	ExpectedArtifacts []ExpectedArtifact `json:"expected_artifacts"`
	// WriteScope are the globs, relative to the repository folder, a path
	// artifact must match; see MatchWriteScope. None means no path artifact
	// is allowed (inline ones still are).
	WriteScope []string `json:"write_scope"`
	// Priority orders the queue: higher first, then older (lower Seq).
	Priority int `json:"priority"`
	// Seq is the creation sequence: the packet's age in the queue. A packet
	// that comes back to the queue keeps it, so it goes ahead of newer
	// packets of its priority.
	Seq            uint64      `json:"seq"`
	MaxAttempts    int         `json:"max_attempts"`
	ReviewRequired bool        `json:"review_required"`
	State          PacketState `json:"state"`
	// Attempt counts the claims so far (an operator's requeue resets it).
	Attempt   int       `json:"attempt"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Lease is the current lease: set exactly in claimed and in_progress.
	Lease *Lease `json:"lease,omitempty"`
	// Summary is what the last completing session said it did.
	Summary string `json:"summary,omitempty"`
	// ReviewNotes are the last verdict's notes: after request_changes, what
	// the next claimer must address.
	ReviewNotes string `json:"review_notes,omitempty"`
	// History holds the newest transitions (at most maxPacketHistory), oldest
	// first. Lease renewals are not transitions.
	History []Transition `json:"history"`
}

// PacketSpec describes a packet to create.
type PacketSpec struct {
	RepositoryID      string
	Title             string
	Instructions      string
	ExpectedArtifacts []ExpectedArtifact
	WriteScope        []string
	Priority          int
	MaxAttempts       int // 0 means DefaultMaxAttempts
	ReviewRequired    bool
}

// Artifact is a published result of a packet: inline content kept in the
// database, or a path in the repository with the hash its publisher gave.
type Artifact struct {
	ID       string `json:"id"`
	PacketID string `json:"packet_id"`
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	// Path is relative to the repository folder, slash-separated and
	// cleaned. Empty for inline content.
	Path string `json:"path,omitempty"`
	// Content is the inline content; nil for a path.
	Content *string `json:"content,omitempty"`
	// SHA256 is lowercase hex: computed for inline content, as given for a
	// path.
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	SessionID string    `json:"session_id"`
	LeaseID   string    `json:"lease_id"`
	CreatedAt time.Time `json:"created_at"`
}

// ArtifactSpec describes an artifact to publish: Content, or Path and
// SHA256 (and Size, as declared).
type ArtifactSpec struct {
	Name    string
	Kind    string
	Content *string
	Path    string
	SHA256  string
	Size    int64
}

// Verdict is a review's outcome.
type Verdict string

const (
	VerdictApprove        Verdict = "approve"         // in_review -> done
	VerdictRequestChanges Verdict = "request_changes" // in_review -> queued, with notes
	VerdictReject         Verdict = "reject"          // in_review -> failed
)

// PacketFilter selects packets for Packets. Empty fields match everything.
type PacketFilter struct {
	RepositoryID string      `json:"repository_id,omitempty"`
	State        PacketState `json:"state,omitempty"`
	// Limit is at most 1000; 0 means 100.
	Limit int `json:"limit,omitempty"`
	// After is the id of the last packet of the previous page: the listing
	// goes on with the packets created before it.
	After string `json:"after,omitempty"`
}

// ---- keys ------------------------------------------------------------------

// orderedInt maps int64 order onto unsigned byte order.
func orderedInt(v int64) uint64 { return uint64(v) ^ (1 << 63) }

func queueKey(repoID string, priority int, seq uint64) []byte {
	k := make([]byte, 0, len(repoID)+1+16)
	k = append(k, repoID...)
	k = append(k, 0)
	k = binary.BigEndian.AppendUint64(k, ^orderedInt(int64(priority))) // descending
	return binary.BigEndian.AppendUint64(k, seq)
}

func queuePrefix(repoID string) []byte { return append([]byte(repoID), 0) }

func expiryKey(at time.Time, pktID string) []byte {
	k := make([]byte, 0, 8+len(pktID))
	k = binary.BigEndian.AppendUint64(k, orderedInt(at.UnixNano()))
	return append(k, pktID...)
}

func expiryTime(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])^(1<<63))).UTC()
}

func leaseBySessionKey(sessionID, pktID string) []byte {
	return append(append(append([]byte(nil), sessionID...), 0), pktID...)
}

func artifactKey(pktID, name string) []byte {
	return append(append(append([]byte(nil), pktID...), 0), name...)
}

// packetKeys are the index entries a packet has, worked out from it when it
// is read, so that savePacket can remove them after the packet has changed.
type packetKeys struct {
	state   PacketState
	queue   []byte // nil unless queued
	expiry  []byte // nil unless leased
	session []byte // nil unless leased
}

func keysOf(p *Packet) packetKeys {
	k := packetKeys{state: p.State}
	if p.State == PacketQueued {
		k.queue = queueKey(p.RepositoryID, p.Priority, p.Seq)
	}
	if p.Lease != nil {
		k.expiry = expiryKey(p.Lease.ExpiresAt, p.ID)
		k.session = leaseBySessionKey(p.Lease.SessionID, p.ID)
	}
	return k
}

// ---- records ----------------------------------------------------------------

// packet reads a packet and its index entries; not_found when absent.
func (tx *Tx) packet(id string) (*Packet, packetKeys, error) {
	v := tx.tx.Bucket(bucketPackets).Get([]byte(id))
	if v == nil {
		return nil, packetKeys{}, Deny(CodeNotFound, "no packet %q", id)
	}
	p, err := decodePacket(id, v)
	if err != nil {
		return nil, packetKeys{}, err
	}
	return p, keysOf(p), nil
}

func decodePacket(id string, v []byte) (*Packet, error) {
	var p Packet
	if err := json.Unmarshal(v, &p); err != nil {
		return nil, fmt.Errorf("decode packet %s: %w", id, err)
	}
	return &p, nil
}

// savePacket writes p and moves its index entries from old (what p was when
// read; nil for a new packet) to what p is now. It stamps UpdatedAt.
func (tx *Tx) savePacket(old *packetKeys, p *Packet) error {
	if p.State.leased() != (p.Lease != nil) {
		return fmt.Errorf("packet %s: state %s with lease %v", p.ID, p.State, p.Lease != nil)
	}
	p.UpdatedAt = tx.now
	cur := keysOf(p)
	id := []byte(p.ID)
	queue := tx.tx.Bucket(bucketPacketQueue)
	expiry := tx.tx.Bucket(bucketLeaseExpiry)
	sessions := tx.tx.Bucket(bucketLeasesBySession)
	if old != nil {
		for _, d := range []struct {
			b *bolt.Bucket
			k []byte
		}{{queue, old.queue}, {expiry, old.expiry}, {sessions, old.session}} {
			if d.k != nil {
				if err := d.b.Delete(d.k); err != nil {
					return fmt.Errorf("packet %s: remove index entry: %w", p.ID, err)
				}
			}
		}
	}
	if cur.queue != nil {
		if err := queue.Put(cur.queue, id); err != nil {
			return fmt.Errorf("packet %s: queue: %w", p.ID, err)
		}
	}
	if p.Lease != nil {
		lid := []byte(p.Lease.ID)
		if err := expiry.Put(cur.expiry, lid); err != nil {
			return fmt.Errorf("packet %s: lease expiry: %w", p.ID, err)
		}
		if err := sessions.Put(cur.session, lid); err != nil {
			return fmt.Errorf("packet %s: session lease: %w", p.ID, err)
		}
	}
	if old == nil {
		if err := tx.tx.Bucket(bucketPacketOrder).Put(u64(p.Seq), id); err != nil {
			return fmt.Errorf("packet %s: order: %w", p.ID, err)
		}
	}
	if old == nil || old.state != p.State {
		if old != nil {
			if err := tx.addCount(old.state, -1); err != nil {
				return err
			}
		}
		if err := tx.addCount(p.State, +1); err != nil {
			return err
		}
	}
	v, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode packet %s: %w", p.ID, err)
	}
	if err := tx.tx.Bucket(bucketPackets).Put(id, v); err != nil {
		return fmt.Errorf("store packet %s: %w", p.ID, err)
	}
	return nil
}

func (tx *Tx) addCount(s PacketState, delta int) error {
	b := tx.tx.Bucket(bucketPacketCounts)
	var n uint64
	if v := b.Get([]byte(s)); len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	if delta < 0 && n == 0 {
		return fmt.Errorf("packet count of %s would go below zero", s)
	}
	return b.Put([]byte(s), u64(uint64(int64(n)+int64(delta))))
}

// transition moves p to state to and records it in the bounded history.
func (tx *Tx) transition(p *Packet, to PacketState, reason, sessionID string) {
	p.History = append(p.History, Transition{
		At: tx.now, From: p.State, To: to, Reason: cutReason(reason, maxTransitionReason), SessionID: sessionID,
	})
	if n := len(p.History); n > maxPacketHistory {
		p.History = slices.Clone(p.History[n-maxPacketHistory:])
	}
	p.State = to
}

// cutReason shortens s to at most n bytes without splitting a character.
func cutReason(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ---- validation --------------------------------------------------------------

// checkWorkText refuses text that is not UTF-8, is too long or holds a NUL (ids
// and names are key parts separated by NUL).
func checkWorkText(what, s string, limit int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return Deny(CodeInvalidArgument, "%s is required", what)
	case len(s) > limit:
		return Deny(CodeInvalidArgument, "%s is longer than %d bytes", what, limit)
	case !utf8.ValidString(s):
		return Deny(CodeInvalidArgument, "%s is not valid UTF-8", what)
	case strings.IndexByte(s, 0) >= 0:
		return Deny(CodeInvalidArgument, "%s contains a NUL character", what)
	}
	return nil
}

func checkLeaseFor(d time.Duration) error {
	if d <= 0 || d > MaxLease {
		return Deny(CodeInvalidArgument, "lease duration %s is not in (0, %s]", d, MaxLease)
	}
	return nil
}

// looksAbsolutePath reports whether p is absolute here or on another system
// ("/x", `\x`, "C:..."): a packet made on one machine may be read on another.
func looksAbsolutePath(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// CleanWriteScopeGlob validates one write-scope glob and returns it cleaned.
// A glob is path.Match syntax on slash-separated paths relative to the
// repository folder, with one addition: a segment that is exactly "**"
// matches any number of segments, none included ("docs/**" matches "docs"
// and everything under it; "**/*.md" matches Markdown files at any depth).
// "**" inside a longer segment ("a**") is refused rather than read as "*".
// A glob ending in "/" is the folder and everything in it ("src/" is
// "src/**"); without it, "src" is that one path. Absolute globs and ".."
// segments are refused; "./" and "//" are cleaned away.
func CleanWriteScopeGlob(g string) (string, error) {
	if err := checkWorkText("write-scope glob", g, maxArtifactName, true); err != nil {
		return "", err
	}
	if looksAbsolutePath(g) {
		return "", Deny(CodeInvalidArgument, "write-scope glob %q is absolute: globs are relative to the repository", g)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q has a \"..\" segment", g)
		}
	}
	c := path.Clean(g)
	if c == "." {
		return "", Deny(CodeInvalidArgument, "write-scope glob %q names the repository folder itself", g)
	}
	if strings.HasSuffix(g, "/") && !strings.HasSuffix(c, "/**") && c != "**" {
		c += "/**" // "src/" is the folder and everything in it
	}
	for _, seg := range strings.Split(c, "/") {
		if seg == "**" {
			continue
		}
		if strings.Contains(seg, "**") {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q: ** must be a whole path segment", g)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q: %v", g, err)
		}
	}
	return c, nil
}

// MatchWriteScope reports whether the cleaned relative path p matches one of
// the globs (see CleanWriteScopeGlob for the syntax).
func MatchWriteScope(globs []string, p string) bool {
	name := strings.Split(p, "/")
	for _, g := range globs {
		if matchSegments(strings.Split(g, "/"), name) {
			return true
		}
	}
	return false
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Collapse runs of ** and try every split of the rest.
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// ---- creating and reading ----------------------------------------------------

// CreatePacket validates spec and queues a new packet. Denials:
// repo_not_registered, invalid_argument.
func (tx *Tx) CreatePacket(spec PacketSpec) (Packet, error) {
	if !tx.RepositoryExists(spec.RepositoryID) {
		return Packet{}, Deny(CodeRepoNotRegistered, "repository %q is not registered", spec.RepositoryID)
	}
	title := strings.TrimSpace(spec.Title)
	if err := checkWorkText("title", title, maxPacketTitle, true); err != nil {
		return Packet{}, err
	}
	if err := checkWorkText("instructions", spec.Instructions, maxPacketInstructions, false); err != nil {
		return Packet{}, err
	}
	if spec.MaxAttempts == 0 {
		spec.MaxAttempts = DefaultMaxAttempts
	}
	if spec.MaxAttempts < 1 || spec.MaxAttempts > maxPacketAttempts {
		return Packet{}, Deny(CodeInvalidArgument, "max attempts %d is not in 1..%d", spec.MaxAttempts, maxPacketAttempts)
	}
	if len(spec.ExpectedArtifacts) > maxPacketListItems || len(spec.WriteScope) > maxPacketListItems {
		return Packet{}, Deny(CodeInvalidArgument, "at most %d expected artifacts and %d write-scope globs", maxPacketListItems, maxPacketListItems)
	}
	expected := make([]ExpectedArtifact, 0, len(spec.ExpectedArtifacts))
	for _, e := range spec.ExpectedArtifacts {
		if err := checkWorkText("expected artifact name", e.Name, maxArtifactName, true); err != nil {
			return Packet{}, err
		}
		if err := checkWorkText("expected artifact kind", e.Kind, maxArtifactKind, false); err != nil {
			return Packet{}, err
		}
		if slices.ContainsFunc(expected, func(x ExpectedArtifact) bool { return x.Name == e.Name }) {
			return Packet{}, Deny(CodeInvalidArgument, "expected artifact %q is listed twice", e.Name)
		}
		expected = append(expected, e)
	}
	scope := make([]string, 0, len(spec.WriteScope))
	for _, g := range spec.WriteScope {
		c, err := CleanWriteScopeGlob(g)
		if err != nil {
			return Packet{}, err
		}
		if !slices.Contains(scope, c) {
			scope = append(scope, c)
		}
	}
	seq, err := tx.tx.Bucket(bucketPackets).NextSequence()
	if err != nil {
		return Packet{}, fmt.Errorf("packet sequence: %w", err)
	}
	p := &Packet{
		ID:                NewID("pkt"),
		RepositoryID:      spec.RepositoryID,
		Title:             title,
		Instructions:      spec.Instructions,
		ExpectedArtifacts: expected,
		WriteScope:        scope,
		Priority:          spec.Priority,
		Seq:               seq,
		MaxAttempts:       spec.MaxAttempts,
		ReviewRequired:    spec.ReviewRequired,
		State:             PacketQueued,
		CreatedAt:         tx.now,
		History:           []Transition{{At: tx.now, To: PacketQueued, Reason: "created"}},
	}
	if err := tx.savePacket(nil, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// Packet returns one packet; not_found when there is none.
func (tx *Tx) Packet(id string) (Packet, error) {
	p, _, err := tx.packet(id)
	if err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// Packets lists packets newest first (creation order, through packet_order),
// paged by f.After. Filters by repository and state are applied to each
// packet on the way, so a sparse filter reads more than it returns.
func (tx *Tx) Packets(f PacketFilter) ([]Packet, error) {
	if f.State != "" && !f.State.Valid() {
		return nil, Deny(CodeInvalidArgument, "unknown packet state %q", f.State)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	packets := tx.tx.Bucket(bucketPackets)
	c := tx.tx.Bucket(bucketPacketOrder).Cursor()
	var k, v []byte
	if f.After != "" {
		after, _, err := tx.packet(f.After)
		if CodeOf(err) == CodeNotFound {
			return nil, Deny(CodeInvalidArgument, "paging cursor %q is not a packet", f.After)
		}
		if err != nil {
			return nil, err
		}
		if k, _ = c.Seek(u64(after.Seq)); k == nil {
			return nil, fmt.Errorf("packet %s missing from the order index", after.ID)
		}
		k, v = c.Prev()
	} else {
		k, v = c.Last()
	}
	out := []Packet{}
	for ; k != nil && len(out) < limit; k, v = c.Prev() {
		raw := packets.Get(v)
		if raw == nil {
			return nil, fmt.Errorf("order index names missing packet %s", v)
		}
		p, err := decodePacket(string(v), raw)
		if err != nil {
			return nil, err
		}
		if (f.RepositoryID == "" || p.RepositoryID == f.RepositoryID) && (f.State == "" || p.State == f.State) {
			out = append(out, *p)
		}
	}
	return out, nil
}

// PacketCounts returns how many packets are in each state, every state
// present. It reads counters kept by every write, not the packets.
func (tx *Tx) PacketCounts() map[PacketState]int {
	out := make(map[PacketState]int, len(packetStates))
	b := tx.tx.Bucket(bucketPacketCounts)
	for _, s := range packetStates {
		if v := b.Get([]byte(s)); len(v) == 8 {
			out[s] = int(binary.BigEndian.Uint64(v))
		} else {
			out[s] = 0
		}
	}
	return out
}

// ---- leases ----------------------------------------------------------------

// ClaimPacket leases the best queued packet of repository repoID to
// sessionID: the highest priority, then the oldest. It reads one queue entry
// (O(log n)), gives the packet a new lease id, counts the attempt and
// returns ok=false when the queue is empty. Denials: invalid_argument,
// repo_not_registered.
func (tx *Tx) ClaimPacket(repoID, sessionID string, leaseFor time.Duration) (Packet, bool, error) {
	if err := checkWorkText("session id", sessionID, maxWorkID, true); err != nil {
		return Packet{}, false, err
	}
	if err := checkLeaseFor(leaseFor); err != nil {
		return Packet{}, false, err
	}
	if !tx.RepositoryExists(repoID) {
		return Packet{}, false, Deny(CodeRepoNotRegistered, "repository %q is not registered", repoID)
	}
	prefix := queuePrefix(repoID)
	k, v := tx.tx.Bucket(bucketPacketQueue).Cursor().Seek(prefix)
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return Packet{}, false, nil
	}
	p, keys, err := tx.packet(string(v))
	if err != nil {
		return Packet{}, false, fmt.Errorf("queue index: %w", err)
	}
	// Never hand out what is not queued: a stale index entry is a bug to
	// report, not a packet to give away twice.
	if p.State != PacketQueued || p.Lease != nil || !bytes.Equal(keys.queue, k) {
		return Packet{}, false, fmt.Errorf("queue index entry %x names packet %s in state %s", k, p.ID, p.State)
	}
	p.Attempt++
	p.Lease = &Lease{ID: NewID("lse"), SessionID: sessionID, ClaimedAt: tx.now, ExpiresAt: tx.now.Add(leaseFor)}
	tx.transition(p, PacketClaimed, fmt.Sprintf("attempt %d", p.Attempt), sessionID)
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, false, err
	}
	return *p, true, nil
}

// leased reads a packet that sessionID must hold under the live lease
// leaseID. Any mismatch — no lease, another lease, another session, an
// expired lease — is lease_lost; an unknown packet is not_found.
func (tx *Tx) leased(pktID, sessionID, leaseID string) (*Packet, packetKeys, error) {
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return nil, keys, err
	}
	l := p.Lease
	switch {
	case l == nil || !p.State.leased():
		return nil, keys, Deny(CodeLeaseLost, "packet %s holds no lease (it is %s)", p.ID, p.State)
	case leaseID == "" || l.ID != leaseID:
		return nil, keys, Deny(CodeLeaseLost, "lease %q is not packet %s's current lease", leaseID, p.ID)
	case l.SessionID != sessionID:
		return nil, keys, Deny(CodeLeaseLost, "packet %s is leased to another session", p.ID)
	case !tx.now.Before(l.ExpiresAt):
		return nil, keys, Deny(CodeLeaseLost, "lease %s expired at %s", l.ID, l.ExpiresAt.Format(time.RFC3339))
	}
	return p, keys, nil
}

// AckPacket confirms that the session started (claimed -> in_progress) or,
// when it already has, renews the lease: it expires leaseFor from now. The
// lease id stays. Denials: not_found, lease_lost, invalid_argument.
func (tx *Tx) AckPacket(pktID, sessionID, leaseID string, leaseFor time.Duration) (Packet, error) {
	if err := checkLeaseFor(leaseFor); err != nil {
		return Packet{}, err
	}
	p, keys, err := tx.leased(pktID, sessionID, leaseID)
	if err != nil {
		return Packet{}, err
	}
	l := *p.Lease
	l.ExpiresAt = tx.now.Add(leaseFor)
	p.Lease = &l
	if p.State == PacketClaimed {
		tx.transition(p, PacketInProgress, "acknowledged", sessionID)
	}
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// ReleasePacket gives a leased packet back to the queue. The attempt stays
// counted (the next claim counts another); MaxAttempts is not checked: a
// release is the session's choice, not a lost lease. Denials: not_found,
// lease_lost.
func (tx *Tx) ReleasePacket(pktID, sessionID, leaseID, reason string) (Packet, error) {
	p, keys, err := tx.leased(pktID, sessionID, leaseID)
	if err != nil {
		return Packet{}, err
	}
	p.Lease = nil
	tx.transition(p, PacketQueued, reasonOr(reason, "released"), sessionID)
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// CompletePacket finishes a leased packet (claimed or in_progress): to
// in_review when it asks for review, else to done. Every expected artifact
// must be published first (by any attempt: a later publish of a name
// replaces the earlier one). Denials: not_found, lease_lost,
// artifacts_missing, invalid_argument.
func (tx *Tx) CompletePacket(pktID, sessionID, leaseID, summary string) (Packet, error) {
	p, keys, err := tx.leased(pktID, sessionID, leaseID)
	if err != nil {
		return Packet{}, err
	}
	if err := checkWorkText("summary", summary, maxWorkText, false); err != nil {
		return Packet{}, err
	}
	art := tx.tx.Bucket(bucketArtifacts)
	var missing []string
	for _, e := range p.ExpectedArtifacts {
		if art.Get(artifactKey(p.ID, e.Name)) == nil {
			missing = append(missing, e.Name)
		}
	}
	if len(missing) > 0 {
		return Packet{}, Deny(CodeArtifactsMissing, "packet %s still needs %s", p.ID, strings.Join(missing, ", "))
	}
	to := PacketDone
	if p.ReviewRequired {
		to = PacketInReview
	}
	p.Lease = nil
	p.Summary = summary
	tx.transition(p, to, reasonOr(summary, "completed"), sessionID)
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// ExpireLeases ends every lease that has expired (ExpiresAt <= now). The
// attempt was counted at the claim: a packet that has used MaxAttempts
// fails, any other goes back to the queue. It reads only the expired entries
// of the expiry index and returns the packets it changed, earliest expiry
// first.
func (tx *Tx) ExpireLeases() ([]Packet, error) {
	// Collect first, write after: bbolt cursors do not survive writes to
	// their bucket.
	var ids []string
	c := tx.tx.Bucket(bucketLeaseExpiry).Cursor()
	for k, _ := c.First(); k != nil && len(k) > 8 && !tx.now.Before(expiryTime(k)); k, _ = c.Next() {
		ids = append(ids, string(k[8:]))
	}
	out := []Packet{}
	for _, id := range ids {
		p, keys, err := tx.packet(id)
		if err != nil {
			return nil, fmt.Errorf("lease expiry index: %w", err)
		}
		if p.Lease == nil || tx.now.Before(p.Lease.ExpiresAt) {
			return nil, fmt.Errorf("lease expiry index entry for packet %s does not match its lease", id)
		}
		sessionID := p.Lease.SessionID
		p.Lease = nil
		if p.Attempt >= p.MaxAttempts {
			tx.transition(p, PacketFailed, fmt.Sprintf("lease expired; attempt %d of %d", p.Attempt, p.MaxAttempts), sessionID)
		} else {
			tx.transition(p, PacketQueued, "lease expired", sessionID)
		}
		if err := tx.savePacket(&keys, p); err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// NextLeaseExpiry returns the earliest lease expiry, for a timer that calls
// ExpireLeases; ok=false when no packet is leased.
func (tx *Tx) NextLeaseExpiry() (time.Time, bool) {
	k, _ := tx.tx.Bucket(bucketLeaseExpiry).Cursor().First()
	if len(k) < 8 {
		return time.Time{}, false
	}
	return expiryTime(k), true
}

// ReleaseSessionLeases gives every packet leased to sessionID back to the
// queue, as ReleasePacket would (attempts kept, MaxAttempts not checked),
// for a session that ended. It reads the session's entries of the
// leases_by_session index only.
func (tx *Tx) ReleaseSessionLeases(sessionID, reason string) ([]Packet, error) {
	if err := checkWorkText("session id", sessionID, maxWorkID, true); err != nil {
		return nil, err
	}
	prefix := leaseBySessionKey(sessionID, "")
	var ids []string
	c := tx.tx.Bucket(bucketLeasesBySession).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, string(k[len(prefix):]))
	}
	out := []Packet{}
	for _, id := range ids {
		p, keys, err := tx.packet(id)
		if err != nil {
			return nil, fmt.Errorf("session lease index: %w", err)
		}
		if p.Lease == nil || p.Lease.SessionID != sessionID {
			return nil, fmt.Errorf("session lease index entry for packet %s does not match its lease", id)
		}
		p.Lease = nil
		tx.transition(p, PacketQueued, reasonOr(reason, "session ended"), sessionID)
		if err := tx.savePacket(&keys, p); err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// ---- review and operator actions -----------------------------------------------

// ReviewVerdict decides a packet in review: approve -> done, request_changes
// -> queued (the notes stay on the packet for the next claimer), reject ->
// failed. Denials: not_found, invalid_state, invalid_argument.
func (tx *Tx) ReviewVerdict(pktID string, verdict Verdict, notes string) (Packet, error) {
	var to PacketState
	switch verdict {
	case VerdictApprove:
		to = PacketDone
	case VerdictRequestChanges:
		to = PacketQueued
	case VerdictReject:
		to = PacketFailed
	default:
		return Packet{}, Deny(CodeInvalidArgument, "unknown verdict %q (approve, request_changes, reject)", verdict)
	}
	if err := checkWorkText("review notes", notes, maxWorkText, false); err != nil {
		return Packet{}, err
	}
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	if p.State != PacketInReview {
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s, not in_review", p.ID, p.State)
	}
	p.ReviewNotes = notes
	reason := string(verdict)
	if notes != "" {
		reason += ": " + notes
	}
	tx.transition(p, to, reason, "")
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// CancelPacket cancels a packet that has not ended (queued, claimed,
// in_progress, in_review); its lease, if any, is gone. Denials: not_found,
// invalid_state.
func (tx *Tx) CancelPacket(pktID, reason string) (Packet, error) {
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	if p.State.Terminal() {
		return Packet{}, Deny(CodeInvalidState, "packet %s is already %s", p.ID, p.State)
	}
	p.Lease = nil
	tx.transition(p, PacketCancelled, reasonOr(reason, "cancelled"), "")
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// RequeuePacket is the operator putting a packet back in the queue from
// failed, cancelled, claimed or in_progress (taking the lease away), with
// its attempts reset to 0. Denials: not_found, invalid_state.
func (tx *Tx) RequeuePacket(pktID, reason string) (Packet, error) {
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	switch p.State {
	case PacketFailed, PacketCancelled, PacketClaimed, PacketInProgress:
	default:
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s: only failed, cancelled, claimed or in_progress packets are requeued", p.ID, p.State)
	}
	p.Lease = nil
	p.Attempt = 0
	tx.transition(p, PacketQueued, reasonOr(reason, "requeued"), "")
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

func reasonOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// ---- artifacts ----------------------------------------------------------------

// PublishArtifact records an artifact of a leased packet. Publishing a name
// again replaces the earlier artifact of that name (a new id, the old one
// gone). Inline content is at most MaxInlineArtifact bytes of UTF-8 (it
// travels as a JSON string) and is hashed here.
//
// A path is taken relative to repoPath ("" means the registered
// repository's folder), cleaned, and refused with write_scope_violation when
// it is absolute, leaves the repository, matches none of the packet's
// write-scope globs, or leads outside the repository through a symbolic
// link. The store never reads the file's bytes: the hash and size are the
// publisher's word, recorded for whoever reads the file later. The symbolic
// link check looks at the file system as it is now; nothing stops a link
// made afterwards.
//
// Denials: not_found, lease_lost, invalid_argument, write_scope_violation.
func (tx *Tx) PublishArtifact(pktID, sessionID, leaseID string, a ArtifactSpec, repoPath string) (Artifact, error) {
	p, _, err := tx.leased(pktID, sessionID, leaseID)
	if err != nil {
		return Artifact{}, err
	}
	if err := checkWorkText("artifact name", a.Name, maxArtifactName, true); err != nil {
		return Artifact{}, err
	}
	if err := checkWorkText("artifact kind", a.Kind, maxArtifactKind, false); err != nil {
		return Artifact{}, err
	}
	art := Artifact{
		ID: NewID("art"), PacketID: p.ID, Name: a.Name, Kind: a.Kind,
		SessionID: sessionID, LeaseID: leaseID, CreatedAt: tx.now,
	}
	if art.Kind == "" {
		if i := slices.IndexFunc(p.ExpectedArtifacts, func(e ExpectedArtifact) bool { return e.Name == a.Name }); i >= 0 {
			art.Kind = p.ExpectedArtifacts[i].Kind
		}
	}
	switch {
	case a.Content != nil && a.Path != "":
		return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: give inline content or a path, not both", a.Name)
	case a.Content != nil:
		content := *a.Content
		if len(content) > MaxInlineArtifact {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: inline content is %d bytes, more than %d (publish a path instead)", a.Name, len(content), MaxInlineArtifact)
		}
		if !utf8.ValidString(content) {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: inline content is not valid UTF-8", a.Name)
		}
		sum := sha256.Sum256([]byte(content))
		art.SHA256 = hex.EncodeToString(sum[:])
		if a.SHA256 != "" && !strings.EqualFold(a.SHA256, art.SHA256) {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 given does not match the content", a.Name)
		}
		art.Content = &content
		art.Size = int64(len(content))
	case a.Path != "":
		if len(a.SHA256) != 64 {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
		}
		if _, err := hex.DecodeString(a.SHA256); err != nil {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: sha256 must be 64 hex characters", a.Name)
		}
		if a.Size < 0 {
			return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: negative size", a.Name)
		}
		if repoPath == "" {
			repo, err := tx.Repository(p.RepositoryID)
			if err != nil {
				return Artifact{}, err
			}
			repoPath = repo.Path
		}
		rel, err := checkArtifactPath(repoPath, a.Path, p.WriteScope)
		if err != nil {
			return Artifact{}, err
		}
		art.Path = rel
		art.SHA256 = strings.ToLower(a.SHA256)
		art.Size = a.Size
	default:
		return Artifact{}, Deny(CodeInvalidArgument, "artifact %q: give inline content or a path", a.Name)
	}
	v, err := json.Marshal(&art)
	if err != nil {
		return Artifact{}, fmt.Errorf("encode artifact: %w", err)
	}
	if err := tx.tx.Bucket(bucketArtifacts).Put(artifactKey(p.ID, art.Name), v); err != nil {
		return Artifact{}, fmt.Errorf("store artifact %s: %w", art.ID, err)
	}
	return art, nil
}

// checkArtifactPath returns p cleaned, relative and slash-separated, or the
// write_scope_violation that keeps it out.
func checkArtifactPath(repoPath, p string, scope []string) (string, error) {
	if err := checkWorkText("artifact path", p, 4096, true); err != nil {
		return "", err
	}
	if looksAbsolutePath(p) {
		return "", Deny(CodeWriteScopeViolation, "artifact path %q is absolute: paths are relative to the repository", p)
	}
	rel := path.Clean(filepath.ToSlash(p))
	switch {
	case rel == ".":
		return "", Deny(CodeInvalidArgument, "artifact path %q names the repository folder itself", p)
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return "", Deny(CodeWriteScopeViolation, "artifact path %q leaves the repository", p)
	case !MatchWriteScope(scope, rel):
		return "", Deny(CodeWriteScopeViolation, "artifact path %q is outside the packet's write scope %q", rel, scope)
	}
	if err := checkNoSymlinkEscape(repoPath, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// checkNoSymlinkEscape resolves rel under repoPath on the real file system
// and refuses it when it lands outside the resolved repository folder. A
// path that does not exist yet is judged by its nearest existing parent.
// Lstat finds that parent, so a dangling link counts as existing: its
// target cannot be resolved and it is refused rather than let through.
func checkNoSymlinkEscape(repoPath, rel string) error {
	root, err := filepath.EvalSymlinks(repoPath)
	if err != nil {
		return fmt.Errorf("resolve repository folder: %w", err)
	}
	p := filepath.Join(repoPath, filepath.FromSlash(rel))
	for {
		_, err := os.Lstat(p)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Deny(CodeWriteScopeViolation, "artifact path %q cannot be checked: %v", rel, withoutPath(err))
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return Deny(CodeWriteScopeViolation, "artifact path %q goes through a link that does not resolve: %v", rel, withoutPath(err))
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return Deny(CodeWriteScopeViolation, "artifact path %q leads outside the repository through a symbolic link", rel)
	}
	return nil
}

// withoutPath drops the absolute path an *fs.PathError carries, so a
// denial tells the agent what went wrong without the host's folder layout.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Artifacts lists a packet's artifacts by name, inline content included.
// Denial: not_found.
func (tx *Tx) Artifacts(pktID string) ([]Artifact, error) {
	if tx.tx.Bucket(bucketPackets).Get([]byte(pktID)) == nil {
		return nil, Deny(CodeNotFound, "no packet %q", pktID)
	}
	prefix := artifactKey(pktID, "")
	out := []Artifact{}
	c := tx.tx.Bucket(bucketArtifacts).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var a Artifact
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, fmt.Errorf("decode artifact %q: %w", k, err)
		}
		out = append(out, a)
	}
	return out, nil
}
