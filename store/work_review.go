package store

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Review verdicts and the operator's actions on a packet.

// Bounds on a review. A review is read back by the agent in its next claim
// and shown in the GUI: the bounds keep one within about 1 MiB.
const (
	maxReviewNotes    = 16 << 10 // a review's notes
	maxReviewComments = 200      // line comments in one review
	maxCommentText    = 4 << 10  // one comment's text
	maxCommentPath    = 1 << 10  // one comment's path
	maxCommentLine    = 1 << 30  // a line number beyond any file's
)

// Sides of a diff a line comment is on.
const (
	SideOld = "old" // the line as it was on the base: a removed or context line
	SideNew = "new" // the line as the packet left it: an added or context line
)

// ReviewComment is a comment on one line of a packet's diff.
type ReviewComment struct {
	// Path is the file as the packet's diff names it: relative to the top
	// of the git repository, slash-separated.
	Path string `json:"path" jsonschema:"the file, as the diff names it (relative to the top of the git repository)"`
	// Line is the 1-based line number on Side; 0 is the file as a whole.
	Line int    `json:"line" jsonschema:"1-based line number on side; 0 for the file as a whole"`
	Side string `json:"side" jsonschema:"old (the line on the base) or new (the line as the packet left it)"`
	Text string `json:"text"`
}

// PacketReview is a verdict on a packet with what the reviewer said.
type PacketReview struct {
	Verdict  Verdict         `json:"verdict" jsonschema:"approve, request_changes or reject"`
	Notes    string          `json:"notes,omitempty"`
	Comments []ReviewComment `json:"comments,omitempty"`
	At       time.Time       `json:"at"`
	// By is who gave the verdict: "operator" (the GUI, the CLI) or the
	// token or session that did.
	By string `json:"by,omitempty"`
	// To is the commit the review saw (the packet's Changes.To then): what
	// the agent changed after it is the diff from there, which tells
	// which comments its next change touched.
	To string `json:"to,omitempty" jsonschema:"the commit the review saw: the packet's changes.to when it was given"`
}

// ReviewSpec is a verdict to record (ReviewPacket).
type ReviewSpec struct {
	Verdict  Verdict
	Notes    string
	Comments []ReviewComment
	By       string
	// KeepAttempt, on a request_changes, has the next claim go on with
	// the attempt the packet is at rather than start another: the packet
	// is sent back for what is not its agent's doing (its target branch
	// moved under it), which must not use up its attempts.
	KeepAttempt bool
}

// checkReview validates a review's text and returns its comments cleaned
// (an empty side is "new"). Denials: invalid_argument.
func checkReview(r ReviewSpec) ([]ReviewComment, error) {
	if err := checkWorkText("review notes", r.Notes, maxReviewNotes, false); err != nil {
		return nil, err
	}
	if err := checkWorkText("reviewer", r.By, maxWorkID, false); err != nil {
		return nil, err
	}
	if len(r.Comments) > maxReviewComments {
		return nil, Deny(CodeInvalidArgument, "a review has at most %d line comments, not %d", maxReviewComments, len(r.Comments))
	}
	out := make([]ReviewComment, 0, len(r.Comments))
	for i, c := range r.Comments {
		what := fmt.Sprintf("comment %d", i+1)
		if err := checkWorkText(what+" path", c.Path, maxCommentPath, true); err != nil {
			return nil, err
		}
		if looksAbsolutePath(c.Path) || slices.Contains(strings.Split(c.Path, "/"), "..") {
			return nil, Deny(CodeInvalidArgument, "%s path %q must be relative to the repository, without \"..\"", what, c.Path)
		}
		if err := checkWorkText(what+" text", c.Text, maxCommentText, true); err != nil {
			return nil, err
		}
		if c.Line < 0 || c.Line > maxCommentLine {
			return nil, Deny(CodeInvalidArgument, "%s line %d is not in 0..%d (0 is the whole file)", what, c.Line, maxCommentLine)
		}
		switch c.Side {
		case "":
			c.Side = SideNew
		case SideOld, SideNew:
		default:
			return nil, Deny(CodeInvalidArgument, "%s side must be old or new, not %q", what, c.Side)
		}
		out = append(out, c)
	}
	return out, nil
}

// ReviewVerdict is ReviewPacket with notes and no line comments.
func (tx *Tx) ReviewVerdict(pktID string, verdict Verdict, notes string) (Packet, error) {
	return tx.ReviewPacket(pktID, ReviewSpec{Verdict: verdict, Notes: notes})
}

// ReviewPacket records a verdict on a packet, with its notes and line
// comments, as the packet's Review (and its notes as ReviewNotes too, for
// readers from before Review). Two kinds of packet take one:
//
//   - in review: approve -> done, request_changes -> queued, reject ->
//     failed;
//   - done with changes that have not landed (the changes are the review's
//     object even when the packet asked for no review): request_changes ->
//     queued, reject -> failed, approve records the review and leaves it
//     done (landing it is work.land's).
//
// A packet sent back with request_changes keeps its Changes: the next claim
// goes preferably to the session that made them (see claimable), and its
// next completion's range starts where theirs did. A rejected packet keeps
// them too, with nothing deleted: the session's worktree and branch are
// the person's to discard. Denials: not_found, invalid_state,
// invalid_argument.
func (tx *Tx) ReviewPacket(pktID string, spec ReviewSpec) (Packet, error) {
	switch spec.Verdict {
	case VerdictApprove, VerdictRequestChanges, VerdictReject:
	default:
		return Packet{}, Deny(CodeInvalidArgument, "unknown verdict %q (approve, request_changes, reject)", spec.Verdict)
	}
	comments, err := checkReview(spec)
	if err != nil {
		return Packet{}, err
	}
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	unlanded := p.State == PacketDone && p.Changes != nil && p.Landed == nil
	if p.State != PacketInReview && !unlanded {
		if p.State == PacketDone {
			return Packet{}, Deny(CodeInvalidState, "packet %s is done with no unlanded changes to review", p.ID)
		}
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s, not in_review (nor done with unlanded changes)", p.ID, p.State)
	}
	to := p.State
	switch spec.Verdict {
	case VerdictApprove:
		to = PacketDone
	case VerdictRequestChanges:
		to = PacketQueued
	case VerdictReject:
		to = PacketFailed
	}
	if spec.KeepAttempt && to == PacketQueued && p.Attempt > 0 {
		p.Attempt-- // the next claim counts it back
	}
	p.Review = &PacketReview{Verdict: spec.Verdict, Notes: spec.Notes, Comments: comments, At: tx.now, By: spec.By}
	if p.Changes != nil {
		p.Review.To = p.Changes.To
	}
	p.ReviewNotes = spec.Notes
	if to != p.State {
		// The count before the notes: a long reason is cut at its end.
		reason := string(spec.Verdict)
		switch n := len(comments); n {
		case 0:
		case 1:
			reason += " (1 line comment)"
		default:
			reason += fmt.Sprintf(" (%d line comments)", n)
		}
		if spec.Notes != "" {
			reason += ": " + spec.Notes
		}
		tx.transition(p, to, reason, "")
	}
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

// maxLandingURL bounds a pull request's address.
const maxLandingURL = 2048

// MarkPacketLanded records that a done packet's changes reached their base
// branch as l.Commit, by l.Mode (for a pull request: were pushed, and
// maybe a pull request opened at l.URL): git did it already (outside any
// transaction), this is the record of it. At is the transaction's time.
// Landing twice is invalid_state.
func (tx *Tx) MarkPacketLanded(pktID string, l PacketLanding) (Packet, error) {
	if len(l.Commit) != 40 && len(l.Commit) != 64 || strings.Trim(l.Commit, "0123456789abcdef") != "" {
		return Packet{}, Deny(CodeInvalidArgument, "commit must be a full hex object name")
	}
	if m := Landing(l.Mode); m == LandingDefault || !m.Valid() {
		return Packet{}, Deny(CodeInvalidArgument, "landing mode must be merge, squash, rebase or pull-request, not %q", l.Mode)
	}
	if len(l.URL) > maxLandingURL || len(l.Remote) > maxWorkID || len(l.Branch) > maxWorkID {
		return Packet{}, Deny(CodeInvalidArgument, "a landing's URL, remote or branch is too long")
	}
	if l.URL != "" && !strings.HasPrefix(l.URL, "https://") && !strings.HasPrefix(l.URL, "http://") {
		return Packet{}, Deny(CodeInvalidArgument, "a pull request's URL must be http(s)")
	}
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	switch {
	case p.Changes == nil:
		return Packet{}, Deny(CodeInvalidState, "packet %s has no changes to land", p.ID)
	case p.Landed != nil:
		return Packet{}, Deny(CodeInvalidState, "packet %s landed already, as %s", p.ID, p.Landed.Commit)
	case p.State != PacketDone:
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s: only a done packet lands", p.ID, p.State)
	}
	l.At = tx.now
	p.Landed = &l
	p.UpdatedAt = tx.now
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}
