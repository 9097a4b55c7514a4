package store

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// Leases: claiming a packet, renewing, releasing and completing it under
// its lease, and ending the leases that expired or whose session ended.

// ClaimPacket leases the best queued packet of repository repoID to
// sessionID: the highest priority, then the oldest, passing by a packet
// sent back for changes that waits for another live session, and taking
// one that waits for sessionID first (claimable, work_review_affinity.go).
// It gives the packet a new lease id, counts the attempt and returns
// ok=false when there is nothing to claim. Denials: invalid_argument,
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
	k, id, err := tx.claimable(repoID, sessionID)
	if err != nil || k == nil {
		return Packet{}, false, err
	}
	p, keys, err := tx.packet(id)
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
	if err := tx.checkLease(p, sessionID, leaseID); err != nil {
		return nil, keys, err
	}
	return p, keys, nil
}

// checkLease refuses, as lease_lost, a packet whose live lease is not
// leaseID held by sessionID.
func (tx *Tx) checkLease(p *Packet, sessionID, leaseID string) error {
	l := p.Lease
	switch {
	case l == nil || !p.State.leased():
		return Deny(CodeLeaseLost, "packet %s holds no lease (it is %s)", p.ID, p.State)
	case leaseID == "" || l.ID != leaseID:
		return Deny(CodeLeaseLost, "lease %q is not packet %s's current lease", leaseID, p.ID)
	case l.SessionID != sessionID:
		return Deny(CodeLeaseLost, "packet %s is leased to another session", p.ID)
	case !tx.now.Before(l.ExpiresAt):
		return Deny(CodeLeaseLost, "lease %s expired at %s", l.ID, l.ExpiresAt.Format(time.RFC3339))
	}
	return nil
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
	if err := tx.attributeUsage(p, sessionID); err != nil {
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
//
// ses is the completing session as read in this transaction, handed on
// rather than read again: the session's usage (done.Usage, then the share
// the packet gets) and, with done.Changes, the head its worktree's work has
// reached are written to it, once. A session known only by its id (a
// Session with nothing but ID) records neither.
func (tx *Tx) CompletePacket(pktID string, ses *Session, leaseID string, done Completion) (Packet, error) {
	p, keys, err := tx.leased(pktID, ses.ID, leaseID)
	if err != nil {
		return Packet{}, err
	}
	if err := checkWorkText("summary", done.Summary, maxWorkText, false); err != nil {
		return Packet{}, err
	}
	if err := tx.CheckArtifacts(*p); err != nil {
		return Packet{}, err
	}
	changed := false
	if done.Usage != nil {
		if err := done.Usage.validate(); err != nil {
			return Packet{}, err
		}
		// Before the share is given: the packet's share includes the
		// reply that completed it.
		changed = tx.setUsage(ses, *done.Usage)
	}
	if done.Changes != nil && ses.Workspace != nil {
		if err := checkHead(done.Changes.To); err != nil {
			return Packet{}, err
		}
		ses.Workspace.Done = done.Changes.To
		changed = true
	}
	if tx.giveUsage(p, ses) || changed {
		if err := tx.putSession(ses); err != nil {
			return Packet{}, err
		}
	}
	to := PacketDone
	if p.ReviewRequired {
		to = PacketInReview
	}
	p.Lease = nil
	p.Summary = done.Summary
	p.Changes = done.Changes
	tx.transition(p, to, reasonOr(done.Summary, "completed"), ses.ID)
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}

// Completion is what CompletePacket records besides the packet's end.
type Completion struct {
	Summary string
	// Changes is the range of commits the packet's work made in the
	// session's worktree; nil outside one.
	Changes *PacketChanges
	// Usage is the session's usage read as it completes; nil when there
	// is none.
	Usage *Usage
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
		if err := tx.attributeUsage(p, sessionID); err != nil {
			return nil, err
		}
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
		if err := tx.attributeUsage(p, sessionID); err != nil {
			return nil, err
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

// CheckArtifacts refuses, with artifacts_missing naming them, a packet
// whose expected artifacts are not all published: what completing it
// needs.
func (tx *Tx) CheckArtifacts(p Packet) error {
	art := tx.tx.Bucket(bucketArtifacts)
	var missing []string
	for _, e := range p.ExpectedArtifacts {
		if art.Get(artifactKey(p.ID, e.Name)) == nil {
			missing = append(missing, e.Name)
		}
	}
	if len(missing) > 0 {
		return Deny(CodeArtifactsMissing, "packet %s still needs %s", p.ID, strings.Join(missing, ", "))
	}
	return nil
}
