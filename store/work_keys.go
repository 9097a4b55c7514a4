package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Packet keys and records: how a packet and its index entries are laid
// out in the buckets drawn in work.go, and the one write path (savePacket)
// every state change goes through.

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
	repo    string
	classes []string // the per-repository counters it is in (countClasses)
	queue   []byte   // nil unless queued
	expiry  []byte   // nil unless leased
	session []byte   // nil unless leased
}

func keysOf(p *Packet) packetKeys {
	k := packetKeys{state: p.State, repo: p.RepositoryID, classes: countClasses(p)}
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
	if r := tx.db.reads; r != nil {
		r.Packets.Add(1)
	}
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
			b kvBucket
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
	if old == nil {
		if err := tx.moveRepoCounts("", nil, p.RepositoryID, cur.classes); err != nil {
			return err
		}
	} else if old.repo != cur.repo || !slices.Equal(old.classes, cur.classes) {
		if err := tx.moveRepoCounts(old.repo, old.classes, cur.repo, cur.classes); err != nil {
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

func reasonOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
