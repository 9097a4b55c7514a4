package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Session affinity of a packet sent back for changes.
//
// A packet sent back with request_changes whose changes have not landed
// is held for the session that made them (its Changes.SessionID): that
// session's worktree has the packet's commits on its branch, and its agent
// remembers the work, so the review's comments are best addressed there.
// While that session is live, other sessions' claims pass the packet by;
// once it has ended (or is lost, or was never recorded), any session may
// claim it, and its changes stay on the old session's branch for the
// person to look at. The holder's own claim takes the packet before
// anything else in the queue: what it left half done comes first.
//
// Nothing is stored for a hold: it is read off the packet (Review, Changes,
// Landed) as the claim walks the queue, so there is no index to keep in
// step. The walk is short: a claim stops at the first packet it may take,
// unless the claimer may hold packets (it completed work in a worktree,
// Workspace.Done), and then it reads at most maxClaimScan entries for one
// held for it before taking the first it may. A holder whose packet sits
// deeper in a longer queue gets it in queue order.
//
// A holder that releases the packet (work.release) gets it back at its next
// claim: to hand it to another session, end the holder's session.

// maxClaimScan bounds how many entries of a repository's queue a claim
// reads looking for a packet held for the claimer, once it has found one
// it may take (it reads on past packets held for others until it has).
const maxClaimScan = 256

// holdView is what the claim walk decodes of a queued packet: the fields
// heldFor reads, not the instructions.
type holdView struct {
	ReservedFor string `json:"reserved_for"`
	Review      *struct {
		Verdict Verdict `json:"verdict"`
	} `json:"review"`
	Changes *struct {
		SessionID string `json:"session_id"`
	} `json:"changes"`
	Landed json.RawMessage `json:"landed"`
}

// heldFor is the session a queued packet waits for, "" for none: the one a
// person started on it, else the one that made its changes.
func (h holdView) heldFor() string {
	if h.ReservedFor != "" {
		return h.ReservedFor
	}
	if h.Review == nil || h.Review.Verdict != VerdictRequestChanges || h.Changes == nil || len(h.Landed) > 0 && string(h.Landed) != "null" {
		return ""
	}
	return h.Changes.SessionID
}

// HeldFor is the session a queued packet waits for (see above), "" when any
// session may claim it. It does not look at whether that session is live.
func (p Packet) HeldFor() string {
	if p.State == PacketQueued && p.ReservedFor != "" {
		return p.ReservedFor
	}
	if p.State != PacketQueued || p.Review == nil || p.Review.Verdict != VerdictRequestChanges || p.Changes == nil || p.Landed != nil {
		return ""
	}
	return p.Changes.SessionID
}

// claimable returns the queue entry (key, packet id) sessionID claims next
// in repoID's queue, or a nil key when it may claim none: the first packet
// held for it, else the first that is held for no live session.
func (tx *Tx) claimable(repoID, sessionID string) ([]byte, string, error) {
	prefix := queuePrefix(repoID)
	packets := tx.tx.Bucket(bucketPackets)
	live := tx.tx.Bucket(bucketLiveSessions)
	mayHold := tx.mayHoldPackets(sessionID)
	var firstKey []byte
	var firstID string
	c := tx.tx.Bucket(bucketPacketQueue).Cursor()
	scanned := 0
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		raw := packets.Get(v)
		if raw == nil {
			return nil, "", fmt.Errorf("queue index names missing packet %s", v)
		}
		var h holdView
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, "", fmt.Errorf("decode packet %s: %w", v, err)
		}
		holder := h.heldFor()
		if holder != "" && holder == sessionID {
			return bytes.Clone(k), string(v), nil
		}
		if firstKey == nil && (holder == "" || live.Get([]byte(holder)) == nil) {
			firstKey, firstID = bytes.Clone(k), string(v)
			if !mayHold {
				break // nothing deeper is held for it
			}
		}
		if scanned++; firstKey != nil && scanned >= maxClaimScan {
			break
		}
	}
	return firstKey, firstID, nil
}

// mayHoldPackets reports whether a packet can be held for sessionID: one a
// person started on a packet, or one that completed work in a worktree
// (only such a session made a packet's Changes).
func (tx *Tx) mayHoldPackets(sessionID string) bool {
	s, err := tx.Session(sessionID)
	return err == nil && (s.Packet != "" || s.Workspace != nil && s.Workspace.Done != "")
}

// SentBack returns the packets of repoID's queue held for sessionID
// because a reviewer requested changes after since, at most maxClaimScan
// entries into the queue: what a session waiting on something else (the
// answer to its question) is told has come back to it.
func (tx *Tx) SentBack(repoID, sessionID string, since time.Time) ([]Packet, error) {
	if !tx.mayHoldPackets(sessionID) {
		return nil, nil
	}
	prefix := queuePrefix(repoID)
	packets := tx.tx.Bucket(bucketPackets)
	var out []Packet
	c := tx.tx.Bucket(bucketPacketQueue).Cursor()
	scanned := 0
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && scanned < maxClaimScan; k, v = c.Next() {
		scanned++
		raw := packets.Get(v)
		if raw == nil {
			return nil, fmt.Errorf("queue index names missing packet %s", v)
		}
		p, err := decodePacket(string(v), raw)
		if err != nil {
			return nil, err
		}
		if p.HeldFor() == sessionID && p.Review != nil && p.Review.Verdict == VerdictRequestChanges && p.Review.At.After(since) {
			out = append(out, *p)
		}
	}
	return out, nil
}
