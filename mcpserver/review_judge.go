package mcpserver

import (
	"github.com/switchboard-dev/switchboard/store"
)

// mayJudge refuses a verdict that would let work judge itself. A person
// (the GUI, the CLI) judges any packet. A session judges none: not one it
// worked on, nor another session's, which a person reviews. A token
// without a session (a reviewer's own) judges a packet none of its
// sessions worked on.
func mayJudge(tx *store.Tx, p Principal, pkt store.Packet) error {
	if p.Operator {
		return nil
	}
	if p.SessionID != "" {
		return store.Deny(store.CodeCapabilityScopeMismatch,
			"session %s may not judge packet %s: a person reviews an agent's work", p.SessionID, pkt.ID)
	}
	worked := map[string]bool{}
	for _, h := range pkt.History {
		if h.SessionID != "" {
			worked[h.SessionID] = true
		}
	}
	if pkt.Changes != nil {
		worked[pkt.Changes.SessionID] = true
	}
	for id := range worked {
		if s, err := tx.Session(id); err == nil && s.TokenKeyID == p.KeyID {
			return store.Deny(store.CodeCapabilityScopeMismatch,
				"this token's session %s worked on packet %s: it may not judge it", id, pkt.ID)
		}
	}
	return nil
}
