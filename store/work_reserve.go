package store

// ReservePacket holds queued packet pktID for session sessionID, which a
// person is starting on it: no other session claims it while that one
// lives, and that one's first claim takes it before anything else in the
// queue. Denials: not_found, invalid_state (not queued, or held for another
// live session).
func (tx *Tx) ReservePacket(pktID, sessionID string) (Packet, error) {
	p, keys, err := tx.packet(pktID)
	if err != nil {
		return Packet{}, err
	}
	if p.State != PacketQueued {
		return Packet{}, Deny(CodeInvalidState, "packet %s is %s: only a queued packet can be started on", p.ID, p.State)
	}
	if holder := p.HeldFor(); holder != "" && holder != sessionID && tx.tx.Bucket(bucketLiveSessions).Get([]byte(holder)) != nil {
		return Packet{}, Deny(CodeInvalidState, "packet %s is held for session %s, which still runs", p.ID, holder)
	}
	p.ReservedFor = sessionID
	if err := tx.savePacket(&keys, p); err != nil {
		return Packet{}, err
	}
	return *p, nil
}
