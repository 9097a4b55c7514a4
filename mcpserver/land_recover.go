package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// Crash safety of landings and worktrees. A landing is two steps that
// cannot share a transaction: git moves the base branch, then the packet
// records it. The landing journal (store.BeginLanding) is written between
// the landing commit's making and the move, and ended in the transaction
// that marks the packet landed. A start finds what a kill left in it and
// asks git which side of the move the base branch is on.

// MethodWorkLandRecover settles one journaled landing at start.
const MethodWorkLandRecover Name[WorkLandRecoverArgs, LandRecovered] = "work.land_recover"

// WorkLandRecoverArgs are the arguments of work.land_recover.
type WorkLandRecoverArgs struct {
	PacketID string `json:"packet_id"`
}

// LandRecovered is the result of work.land_recover.
type LandRecovered struct {
	PacketID string `json:"packet_id"`
	// Outcome is git's answer: made (the base has the landing commit:
	// the packet is marked landed), not_made (it never moved: the packet
	// stays unlanded) or finished (the checkout had taken the landing but
	// its branch had not moved: it was moved, and the packet is landed).
	Outcome workspace.MoveState `json:"outcome"`
	Commit  string              `json:"commit"`
	Mode    string              `json:"mode"`
	// Recorded is true when this call marked the packet landed (false
	// when not made, or when the packet had its landing recorded already).
	Recorded bool `json:"recorded"`
}

const (
	// landSettle bounds how long a recovery waits for a lock of git's on
	// the base branch or the checkout's index: a git a killed run started
	// goes on without it, and a big checkout takes seconds to update.
	landSettle = 10 * time.Second
	// failedMoveSettle is that wait after a landing failed while this run
	// watched: its git has ended, and a lock left is someone else's.
	failedMoveSettle = 2 * time.Second
	// orphanGrace is how long a start lets the git a killed run left
	// running take its locks before looking for them. That git was started
	// before this process opened the database, so it has had all this
	// start's time too; the grace is for a machine too busy to run it.
	orphanGrace = 300 * time.Millisecond
)

func (r *Registry) registerLandRecover() {
	// Global: the daemon's own act on its journal, at start, before any
	// token can call anything; the packet is the journal entry's key.
	m := Define(MethodWorkLandRecover, On(Global, store.CapAdmin), Hidden|Internal|StartupOnly,
		"Settle a landing an earlier run was killed in: mark the packet landed when its base branch has the landing commit, else let it be; either way the journal entry goes.",
		func(c *Call, in WorkLandRecoverArgs) (LandRecovered, error) {
			v := c.Prepared
			out, ok := v.(LandRecovered)
			if !ok {
				return LandRecovered{}, errNoLanding
			}
			if out.Outcome != workspace.MoveNotMade {
				p, err := c.Tx.Packet(in.PacketID)
				if err != nil {
					return LandRecovered{}, err
				}
				// A packet landed already (this very landing, recorded
				// by a call that ran after Prepare read the journal)
				// keeps its record.
				if p.Landed == nil && p.State == store.PacketDone {
					if p, err = c.Tx.MarkPacketLanded(in.PacketID, store.PacketLanding{Commit: out.Commit, Mode: out.Mode}); err != nil {
						return LandRecovered{}, err
					}
					data := fmt.Appendf(nil, `{"landed":%q,"mode":%q,"recovered":%q}`, out.Commit, out.Mode, out.Outcome)
					if _, err := c.Tx.AppendTrace(p.Changes.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, PacketID: p.ID, Data: data}); err != nil && store.CodeOf(err) != store.CodeNotFound {
						return LandRecovered{}, err
					}
					r.signalAfter(c, QueueKey(p.RepositoryID))
					out.Recorded = true
				}
			}
			if err := c.Tx.EndLanding(in.PacketID); err != nil {
				return LandRecovered{}, err
			}
			return out, nil
		})
	m.Prepare = r.recoverLanding
	r.Register(m)
}

// recoverLanding is work.land_recover's Prepare: git, outside every
// transaction. It reads the packet's journal entry and asks
// workspace.RecoverMove, which may finish a half-made fast-forward.
func (r *Registry) recoverLanding(c *Call) (any, error) {
	var in WorkLandRecoverArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	var l store.JournaledLanding
	err := r.prepareView(c, func(tx *store.Tx) error {
		var ok bool
		var err error
		if l, ok, err = tx.Landing(in.PacketID); err == nil && !ok {
			err = store.Deny(store.CodeNotFound, "no landing of %s is under way", in.PacketID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s, err := workspace.RecoverMove(c.Ctx, l.RepoPath, journalMove(l), landSettle)
	if err != nil {
		return nil, err
	}
	return LandRecovered{PacketID: l.PacketID, Outcome: s, Commit: l.NewCommit, Mode: l.Mode}, nil
}

func journalMove(l store.JournaledLanding) workspace.Move {
	return workspace.Move{BaseRef: l.BaseRef, Old: l.OldTip, Next: l.NewCommit, Checkout: l.Checkout}
}

// journalLanding is work.land's BeforeMove: it writes the journal entry
// for moving p's base branch from old to next, durably, before git moves
// it, and returns the move.
func (r *Registry) journalLanding(ctx context.Context, p store.Packet, repo store.Repository, mode, old, next string) (*workspace.Move, error) {
	base := p.Changes.BaseBranch
	checkout := ""
	trees, err := workspace.List(ctx, repo.Path, "")
	if err != nil {
		return nil, err
	}
	for _, w := range trees {
		if w.Branch == base && !w.Bare && !w.Prunable {
			checkout = w.Path
			break
		}
	}
	l := store.JournaledLanding{PacketID: p.ID, RepositoryID: repo.ID, RepoPath: repo.Path, BaseRef: "refs/heads/" + base,
		OldTip: old, NewCommit: next, Mode: mode, Checkout: checkout}
	if err := r.commit.update(ctx, func(tx *store.Tx) error { return tx.BeginLanding(l) }); err != nil {
		return nil, err
	}
	m := journalMove(l)
	return &m, nil
}

// afterFailedMove settles the journal entry of a landing whose move failed
// (landErr): usually git refused before changing anything, and the entry
// goes. A git stopped half way (its deadline, say) may have moved the
// branch, or the checkout without the branch; then the landing is made,
// or finished here, and its commit is returned with true for the handler
// to record. When git cannot tell, the entry stays, for the next landing
// of the packet or the next start to settle.
func (r *Registry) afterFailedMove(ctx context.Context, pktID, repoPath string, m workspace.Move, landErr error) (string, bool) {
	s, err := r.settleMove(ctx, pktID, repoPath, m)
	switch {
	case err != nil:
		r.log.Error("a landing failed half way and git cannot say how far it went; landing it again or the next start looks again", "packet", pktID, "landing", landErr, "err", err)
		return "", false
	case s != workspace.MoveNotMade:
		r.log.Warn("a landing failed after its move; recorded as landed", "packet", pktID, "outcome", s, "landing", landErr)
		return m.Next, true
	}
	return "", false
}

// settleMove asks git which side of m, journaled for pktID, the base
// branch is on (waiting failedMoveSettle for a lock of git's), and when
// not moved ends the entry: nothing of it happened.
func (r *Registry) settleMove(ctx context.Context, pktID, repoPath string, m workspace.Move) (workspace.MoveState, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), worktreeTimeout)
	defer cancel()
	s, err := workspace.RecoverMove(ctx, repoPath, m, failedMoveSettle)
	if err != nil || s != workspace.MoveNotMade {
		return s, err
	}
	if err := r.commit.update(ctx, func(tx *store.Tx) error { return tx.EndLanding(pktID) }); err != nil {
		return "", fmt.Errorf("clear the journal entry of a landing that moved nothing: %w", err)
	}
	return s, nil
}

// settleCutShort settles, when the packet is landed again, the journal
// entry l of an earlier landing no landing of this process holds now: one
// that failed in a way git could not tell at once (a lock held), or one
// the process was killed in and the start could not settle. Made, it is
// what this landing hands the handler to record (done); not made, the
// entry is gone and the landing goes on; undecidable (a lock still
// held), the landing is refused with what to do about it.
func (r *Registry) settleCutShort(ctx context.Context, l store.JournaledLanding) (any, bool, error) {
	s, err := r.settleMove(ctx, l.PacketID, l.RepoPath, journalMove(l))
	if err != nil {
		return nil, false, store.Deny(store.CodeInvalidState, "an earlier landing of %s stopped half way, and git cannot tell yet how far it went: %v", l.PacketID, err)
	}
	if s == workspace.MoveNotMade {
		return nil, false, nil
	}
	r.log.Warn("an earlier landing had moved its base; recorded as landed", "packet", l.PacketID, "outcome", s, "commit", l.NewCommit)
	files := 0
	if st, err := workspace.Diffstat(ctx, l.RepoPath, l.OldTip, l.NewCommit); err == nil {
		files = len(st.Files)
	}
	return landing{PacketLanding: store.PacketLanding{Commit: l.NewCommit, Mode: l.Mode}, Files: files}, true, nil
}

// landingSet is the packets this process is landing now (work.land's
// Prepare): a journal entry of one of them is that landing's own, and
// one of any other packet was left by a landing cut short.
type landingSet struct {
	mu  sync.Mutex
	ids map[string]bool // guarded by mu
}

// claim adds id, or reports false when a landing of it runs already.
func (s *landingSet) claim(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return false
	}
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
	return true
}

func (s *landingSet) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id)
}

// RecoverWorkspaces is the start's pass over what a killed run may have
// left in git, before anything is served: every journaled landing is
// settled (work.land_recover), then, in the background, each ended
// session's worktree is tidied as at any session's end: removed when it holds nothing unlanded
// or uncommitted (TidyWorktree), kept otherwise, whatever ended the
// session (a kill between a landing and its tidy, a session swept as lost).
// (The daemon's own prune forgets worktrees whose folders are gone.)
// A landing git cannot settle is logged and stays journaled for the next
// start. The error is the database's only.
func (r *Registry) RecoverWorkspaces(ctx context.Context) error {
	var landings []store.JournaledLanding
	var ended []string
	err := r.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if landings, err = tx.Landings(); err != nil {
			return err
		}
		ss, err := tx.Sessions(store.SessionFilter{Limit: 1000})
		for _, s := range ss {
			// Another instance's worktrees are on its machine.
			if s.Workspace != nil && !s.State.Live() && s.Instance == tx.InstanceID() {
				ended = append(ended, s.ID)
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("read what to recover: %w", err)
	}
	if len(landings) > 0 {
		t := time.NewTimer(orphanGrace)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	for _, l := range landings {
		out, err := Invoke(ctx, r, OperatorPrincipal(), TransportStartup, MethodWorkLandRecover, WorkLandRecoverArgs{PacketID: l.PacketID})
		if err != nil {
			r.log.Error("settle a landing an earlier run was killed in", "packet", l.PacketID, "commit", l.NewCommit, "err", err)
			continue
		}
		r.log.Warn("settled a landing an earlier run was killed in", "packet", l.PacketID, "outcome", out.Outcome, "commit", l.NewCommit)
	}
	// The tidies go on after the start, as an exit's do: a worktree kept
	// for its work is looked at again each start, and many of them must
	// not hold the endpoint back.
	ctx = context.WithoutCancel(ctx)
	r.goTidy(func() {
		for _, id := range ended {
			r.TidyWorktree(ctx, id)
		}
	})
	return nil
}
