package mcpserver

import (
	"fmt"

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

// nudgeMaker tells the agent that made p's changes, when it waits at its
// prompt, that p came back to it: an agent in a long poll is woken by the
// queue's signal, but one at its prompt would not hear of it until someone
// typed. An agent at work, or a program that takes no prompts, is left
// alone (supervisor.Session.Nudge).
func (r *Registry) nudgeMaker(p store.Packet) {
	if r.agents == nil {
		return
	}
	s, ok := r.agents.Get(p.Changes.SessionID)
	if !ok {
		return
	}
	if s.Nudge(fmt.Sprintf("Packet %s (%q) came back to you with changes requested. Call work_await_packet to take it again; its review says what to change.", p.ID, p.Title)) {
		r.log.Info("nudged the agent of a packet sent back", "session", p.Changes.SessionID, "packet", p.ID)
	}
}
