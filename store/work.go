package store

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
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

// PacketChanges are what a packet's work changed in the code: the commits
// from the session's base commit to the branch's head when it completed,
// and their diffstat.
type PacketChanges struct {
	SessionID  string `json:"session_id"`
	Branch     string `json:"branch"`
	BaseBranch string `json:"base_branch"`
	From       string `json:"from" jsonschema:"the base commit the work started from"`
	To         string `json:"to" jsonschema:"the branch's head at completion"`
	Files      int    `json:"files"`
	Added      int    `json:"added"`
	Deleted    int    `json:"deleted"`
	// HooksNotRun is true when Switchboard committed what the agent left
	// uncommitted at completion: that commit ran none of the
	// repository's git hooks (they are files an agent can write, and the
	// commit runs in the app as the person).
	HooksNotRun bool `json:"hooks_not_run,omitempty" jsonschema:"true when Switchboard committed the agent's uncommitted files at completion without running the repository's git hooks (pre-commit, commit-msg and the rest)"`
	// RebasedFrom is the range as the agent's completion left it, once a
	// person rebased it onto the base branch (RebasePacket): Branch, From
	// and To are then the rebased range's. Nil while it was not.
	RebasedFrom *PacketRange `json:"rebased_from,omitempty" jsonschema:"the range as the agent left it, when a person has since rebased the packet onto its base branch (branch, from and to are then the rebased range)"`
}

// PacketRange is a range of commits on a branch: From (the first commit's
// parent) to To.
type PacketRange struct {
	Branch string `json:"branch"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// PacketLanding is a packet's changes brought onto their base branch.
type PacketLanding struct {
	Commit string    `json:"commit" jsonschema:"the base branch's tip after the landing; for a pull request, the commit pushed"`
	Mode   string    `json:"mode" jsonschema:"merge, squash, rebase or pull-request"`
	At     time.Time `json:"at"`
	// URL, Remote and Branch are a pull request's: its address (none when
	// gh was not there to open it), and where the branch was pushed.
	URL    string `json:"url,omitempty" jsonschema:"the pull request's address"`
	Remote string `json:"remote,omitempty" jsonschema:"the remote the branch was pushed to"`
	Branch string `json:"branch,omitempty" jsonschema:"the branch pushed for the pull request"`
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
	// Changes are the commits the last completion left on its session's
	// branch, when it worked in a worktree of its own; nil otherwise.
	Changes *PacketChanges `json:"changes,omitempty"`
	// Landed says when and how Changes reached the base branch; nil while
	// they have not.
	Landed *PacketLanding `json:"landed,omitempty"`
	// Review is the last verdict, with its notes and line comments: after
	// request_changes, what the next claimer must address. Nil until a
	// first verdict (and on packets reviewed before reviews had comments).
	Review *PacketReview `json:"review,omitempty"`
	// ReservedFor is the session a person started on this packet: while
	// that session lives no other claims the packet, and its own first
	// claim takes it (ReservePacket).
	ReservedFor string `json:"reserved_for,omitempty"`
	// Reviewer is the session a person made this packet's reviewer
	// (AssignReviewer): the one session that may judge it. "" for none:
	// a person judges it.
	Reviewer string `json:"reviewer,omitempty" jsonschema:"the session a person made this packet's reviewer, the one session that may give it a verdict"`
	// ReviewNotes are the last verdict's notes, kept equal to Review.Notes
	// by every verdict: readers from before Review (the GUI's detail, the
	// CLI, a database written by an older version) go on reading them.
	ReviewNotes string `json:"review_notes,omitempty"`
	// Usage is the tokens spent on the packet, summed over its attempts:
	// each lease's session's usage from its previous lease's end (or its
	// start) to this lease's end (see attributeUsage in usage.go). Nil
	// while no attempt's session reported any.
	Usage *Usage `json:"usage,omitempty"`
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
