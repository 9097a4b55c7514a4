package store

import (
	"fmt"
	"strings"
)

// RebasePacket records that a person rebased a done or in_review packet's
// commits onto its base branch: git made the new range (outside any
// transaction) on a branch of its own, and the packet's Changes now name it,
// so that its diff, its conflict check and its landing take it. The range
// the agent left is kept in Changes.RebasedFrom (the first one, when the
// packet is rebased again), and the rebase is a transition in the history
// (in the same state) saying what it was. The diffstat is kept: the
// changes are the agent's, replayed. Denials: not_found; invalid_argument
// for a range that is not full commit ids on a branch; invalid_state for
// a packet with no changes, landed, or in another state.
func (tx *Tx) RebasePacket(pktID string, r PacketRange) (Packet, error) {
	if !isObjectID(r.From) || !isObjectID(r.To) {
		return Packet{}, Deny(CodeInvalidArgument, "a rebased range's from and to must be full hex commit ids")
	}
	if err := checkWorkText("branch", r.Branch, maxWorkID, true); err != nil {
		return Packet{}, err
	}
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	switch {
	case p.Changes == nil:
		return Packet{}, Deny(CodeInvalidState, "packet %s has no commits to rebase", p.ID)
	case p.Landed != nil:
		return Packet{}, Deny(CodeInvalidState, "packet %s landed already, as %s", p.ID, p.Landed.Commit)
	case p.State != PacketDone && p.State != PacketInReview:
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s: only a done or in_review packet is rebased", p.ID, p.State)
	}
	ch := *p.Changes
	was := PacketRange{Branch: ch.Branch, From: ch.From, To: ch.To}
	if ch.RebasedFrom == nil {
		ch.RebasedFrom = &was
	}
	ch.Branch, ch.From, ch.To = r.Branch, r.From, r.To
	p.Changes = &ch
	tx.transition(p, p.State, fmt.Sprintf("rebased onto %s at %.12s as %s (was %s %.12s..%.12s)", ch.BaseBranch, r.From, r.Branch, was.Branch, was.From, was.To), "")
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// isObjectID is true for a full SHA-1 or SHA-256 object id in lower case.
func isObjectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
