package store

import "slices"

// A packet's reviewer: the one session a person named to judge it. Work
// never judges itself, and a session judges no other session's work
// unless a person asked it to (mcpserver's mayJudge holds calls to that;
// these are the records it reads).

// WorkedBy lists the sessions that worked on p, sorted: every session in
// its history (its claims, completions and releases), the one holding its
// lease, the one it is held for, and the one whose commits are its
// changes. None of them may judge p.
func (p Packet) WorkedBy() []string {
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" {
			seen[id] = true
		}
	}
	for _, h := range p.History {
		add(h.SessionID)
	}
	if p.Lease != nil {
		add(p.Lease.SessionID)
	}
	if p.Changes != nil {
		add(p.Changes.SessionID)
	}
	add(p.ReservedFor)
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// AssignReviewer makes session sesID packet pktID's reviewer: the one
// session that may give it a verdict besides a person. An empty sesID
// takes the assignment away. The session must exist, still run, work in
// the packet's repository when it is tied to one, and not have worked on
// the packet. A packet with nothing left to judge (landed, failed,
// cancelled) takes none. Denials: not_found, invalid_state,
// invalid_argument.
func (tx *Tx) AssignReviewer(pktID, sesID string) (Packet, error) {
	if err := checkWorkText("reviewer session", sesID, maxWorkID, false); err != nil {
		return Packet{}, err
	}
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	if sesID != "" {
		switch {
		case p.Landed != nil:
			return Packet{}, Deny(CodeInvalidState, "packet %s landed already: there is nothing left to review", p.ID)
		case p.State == PacketFailed || p.State == PacketCancelled:
			return Packet{}, Deny(CodeInvalidState, "packet %s is %s: there is nothing to review", p.ID, p.State)
		case slices.Contains(p.WorkedBy(), sesID):
			return Packet{}, Deny(CodeInvalidArgument, "session %s worked on packet %s: work never judges itself", sesID, p.ID)
		}
		s, err := tx.Session(sesID)
		if err != nil {
			return Packet{}, err
		}
		if !s.State.Live() {
			return Packet{}, Deny(CodeInvalidState, "session %s has ended", s.ID)
		}
		if s.RepositoryID != "" && s.RepositoryID != p.RepositoryID {
			return Packet{}, Deny(CodeInvalidArgument, "session %s works in another repository than packet %s", s.ID, p.ID)
		}
	}
	if p.Reviewer == sesID {
		return *p, nil
	}
	p.Reviewer = sesID
	p.UpdatedAt = tx.now
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}
