package mcpserver

import (
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/store"
)

// MethodWorkAssignReviewer makes a session a packet's reviewer.
const MethodWorkAssignReviewer Name[AssignReviewerArgs, PacketResult] = "work.assign_reviewer"

// AssignReviewerArgs are the arguments of work.assign_reviewer.
type AssignReviewerArgs struct {
	PacketID string `json:"packet_id"`
	// SessionID is the reviewer; "" takes the assignment away.
	SessionID string `json:"session_id,omitempty" jsonschema:"the session to make the packet's reviewer; empty: none, a person reviews it"`
}

// registerReviewers registers work.assign_reviewer: a person's, never an
// agent's (work:author is never reachable over MCP), so no session makes
// itself or another a judge.
func (r *Registry) registerReviewers() {
	r.Register(Define(MethodWorkAssignReviewer, On(Packet, store.CapWorkAuthor), Hidden,
		"Make a session the reviewer of a packet: the one session that may give it a verdict (review.verdict) besides a person. Never a session that worked on it. An empty session_id takes the assignment away.",
		func(c *Call, in AssignReviewerArgs) (PacketResult, error) {
			p, err := c.Tx.AssignReviewer(in.PacketID, in.SessionID)
			if err != nil {
				return PacketResult{}, err
			}
			r.signalAfter(c, QueueKey(p.RepositoryID))
			return PacketResult{Packet: p}, nil
		}))
}

// mayJudge refuses a verdict that would let work judge itself. A person
// (the GUI, the CLI) judges any packet. A session never judges a packet
// it worked on, and judges another session's only when a person made it
// that packet's reviewer (work.assign_reviewer). A token without a
// session (a reviewer's own) judges a packet none of its sessions worked
// on.
func mayJudge(tx *store.Tx, p Principal, pkt store.Packet) error {
	if p.Operator {
		return nil
	}
	worked := pkt.WorkedBy()
	if p.SessionID != "" {
		switch {
		case slices.Contains(worked, p.SessionID):
			return store.Deny(store.CodeCapabilityScopeMismatch,
				"session %s worked on packet %s: it may not judge it", p.SessionID, pkt.ID)
		case pkt.Reviewer != p.SessionID:
			return store.Deny(store.CodeCapabilityScopeMismatch,
				"session %s may not judge packet %s: a person reviews an agent's work, or makes a session its reviewer", p.SessionID, pkt.ID)
		}
	}
	for _, id := range worked {
		if s, err := tx.Session(id); err == nil && s.TokenKeyID == p.KeyID {
			return store.Deny(store.CodeCapabilityScopeMismatch,
				"this token's session %s worked on packet %s: it may not judge it", id, pkt.ID)
		}
	}
	return nil
}

// sentBack tells the session that made p's changes, which p now waits for,
// that it came back: a long poll for work wakes and takes it, a wait for an
// answer to a question ends with it (session.await_answer's
// changes_requested), and an agent waiting at its prompt has a line typed
// in (nudgeMaker).
func (r *Registry) sentBack(c *Call, p store.Packet) error {
	keys := []string{QueueKey(p.RepositoryID)}
	if p.Changes != nil {
		qs, err := c.Tx.OpenQuestionsOf(p.Changes.SessionID)
		if err != nil {
			return err
		}
		for _, q := range qs {
			keys = append(keys, QuestionKey(q.ID))
		}
		c.AfterCommit(func() { r.nudgeMaker(p) })
	}
	r.signalAfter(c, keys...)
	return nil
}

// nudgeMaker tells the agent that made p's changes, at its prompt, that p
// came back to it: an agent in a long poll is woken by the queue's signal,
// but one at its prompt would not hear of it until someone typed. An agent
// at work is told when it next stops; a program that takes no prompts is
// left alone (supervisor.Session.Nudge).
func (r *Registry) nudgeMaker(p store.Packet) {
	if r.agents == nil {
		return
	}
	s, ok := r.agents.Get(p.Changes.SessionID)
	if !ok {
		return
	}
	if s.Nudge(fmt.Sprintf("Packet %s (%q) came back to you with changes requested. Call work_await_packet to take it again; its review says what to change.", p.ID, p.Title)) {
		r.log.Info("the agent of a packet sent back will be told at its prompt", "session", p.Changes.SessionID, "packet", p.ID)
	}
}
