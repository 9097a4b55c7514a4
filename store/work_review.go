package store

import "strings"

// Review verdicts and the operator's actions on a packet.

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
