package mcpserver

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodWorkDiff    Name[WorkDiffArgs, DiffResult]    = "work.diff"
	MethodSessionDiff Name[SessionDiffArgs, DiffResult] = "session.diff"
)

// WorkDiffArgs are the arguments of work.diff.
type WorkDiffArgs struct {
	PacketID string `json:"packet_id"`
	// Stat asks for the diffstat alone.
	Stat bool `json:"stat,omitempty"`
}

// SessionDiffArgs are the arguments of session.diff.
type SessionDiffArgs = SessionArg

// DiffResult is a change as git shows it.
type DiffResult struct {
	From string `json:"from"`
	// To is the commit the change ends at; "" for a worktree's files as
	// they are now.
	To   string          `json:"to,omitempty"`
	Stat *workspace.Stat `json:"stat,omitempty"`
	// Diff is the unified diff, without colour.
	Diff string `json:"diff,omitempty"`
	// Untracked are the new files a work tree's diff does not show.
	Untracked []string `json:"untracked,omitempty"`
}

// errNoDiff is what a diff's Prepare hands its handler when the call was
// refused before git ran: the handler answers with the refusal.
var errNoDiff = errors.New("no diff was made")

func (r *Registry) registerDiffs() {
	work := Define(MethodWorkDiff, On(Packet, store.CapWorkRead), Hidden|ReadOnly,
		"The commits a completed packet made, as a unified diff or a diffstat.",
		func(c *Call, _ WorkDiffArgs) (DiffResult, error) { return preparedDiff(c) })
	work.Prepare = r.packetDiff
	r.Register(work)
	ses := Define(MethodSessionDiff, On(Session, store.CapAdmin), Hidden|ReadOnly,
		"What a session has changed in its worktree so far, committed or not, as a unified diff and the new files.",
		func(c *Call, _ SessionDiffArgs) (DiffResult, error) { return preparedDiff(c) })
	ses.Prepare = r.sessionDiff
	r.Register(ses)
}

func preparedDiff(c *Call) (DiffResult, error) {
	v, err := c.Prepared()
	if err != nil {
		return DiffResult{}, err
	}
	d, ok := v.(DiffResult)
	if !ok {
		return DiffResult{}, errNoDiff
	}
	return d, nil
}

// packetDiff reads the packet's recorded changes, then asks git, outside
// any transaction.
func (r *Registry) packetDiff(c *Call) (any, error) {
	var in WorkDiffArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	p, repo, err := r.preparePacket(c, in.PacketID)
	if err != nil {
		return nil, err
	}
	if p.Changes == nil {
		return nil, store.Deny(store.CodeInvalidState, "packet %s has no commits: its agent did not work in a worktree of its own, or has not completed it", p.ID)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	out := DiffResult{From: p.Changes.From, To: p.Changes.To}
	st, err := workspace.Diffstat(ctx, repo.Path, out.From, out.To)
	if err != nil {
		return nil, err
	}
	out.Stat = &st
	if !in.Stat {
		d, err := workspace.Diff(ctx, repo.Path, out.From, out.To)
		if err != nil {
			return nil, err
		}
		out.Diff = string(d)
	}
	return out, nil
}

// sessionDiff shows a session's worktree against its base commit.
func (r *Registry) sessionDiff(c *Call) (any, error) {
	s, repoPath, err := r.prepareSession(c)
	if err != nil {
		return nil, err
	}
	if s.Workspace == nil {
		return nil, store.Deny(store.CodeInvalidState, "session %s works in no worktree of its own", s.ID)
	}
	ws := gitWorkspace(s.Workspace, repoPath)
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	d, err := workspace.WorkTreeDiff(ctx, ws)
	if err != nil {
		return nil, err
	}
	untracked, err := workspace.Untracked(ctx, ws)
	if err != nil {
		return nil, err
	}
	return DiffResult{From: ws.BaseCommit, Diff: string(d), Untracked: untracked}, nil
}

// preparePacket reads, for a Prepare, a packet and its repository, whose
// folder must be on this instance.
func (r *Registry) preparePacket(c *Call, pktID string) (store.Packet, store.Repository, error) {
	var p store.Packet
	var repo store.Repository
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = tx.Packet(pktID); err != nil {
			return err
		}
		repo, err = tx.LocalRepository(p.RepositoryID)
		return err
	})
	return p, repo, err
}

// prepareSession reads, for a Prepare, the session a SessionArg call
// names, and its repository's folder (workspaceRepo).
func (r *Registry) prepareSession(c *Call) (store.Session, string, error) {
	var in SessionArg
	if err := c.Decode(&in); err != nil {
		return store.Session{}, "", err
	}
	var s store.Session
	var repoPath string
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if s, err = tx.Session(in.SessionID); err != nil {
			return err
		}
		repoPath = workspaceRepo(tx, s)
		return nil
	})
	return s, repoPath, err
}
