package mcpserver

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
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
	// Range chooses the commits: "" the packet's whole change,
	// DiffReviewed the change as its last review saw it, DiffSinceReview
	// what its agent changed after that review.
	Range string `json:"range,omitempty"`
}

// Ranges of work.diff besides the packet's whole change.
const (
	// DiffReviewed is the packet's change as its last review saw it:
	// from its base to the review's commit.
	DiffReviewed = "reviewed"
	// DiffSinceReview is what the agent changed after the last review:
	// from the review's commit to the packet's head.
	DiffSinceReview = "since_review"
)

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
	// Generated are the files of the diff the person's checkout marks
	// linguist-generated in its .gitattributes.
	Generated []string `json:"generated,omitempty"`
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
	v := c.Prepared
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
	out := DiffResult{From: p.Changes.From, To: p.Changes.To}
	switch in.Range {
	case "":
	case DiffReviewed, DiffSinceReview:
		if p.Review == nil || p.Review.To == "" {
			return nil, store.Deny(store.CodeInvalidState, "packet %s has no review that names the commit it saw", p.ID)
		}
		if in.Range == DiffReviewed {
			out.To = p.Review.To
		} else {
			out.From = p.Review.To
		}
	default:
		return nil, store.Deny(store.CodeInvalidArgument, "range must be %q or %q, not %q", DiffReviewed, DiffSinceReview, in.Range)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
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
		paths := make([]string, len(st.Files))
		for i, f := range st.Files {
			paths[i] = f.Path
		}
		if out.Generated, err = workspace.Generated(ctx, repo.Path, paths); err != nil {
			return nil, err
		}
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
	out := DiffResult{From: ws.BaseCommit, Diff: string(d), Untracked: untracked}
	files, err := unidiff.Parse(out.Diff)
	if err != nil {
		return nil, err
	}
	paths := untracked
	for i := range files {
		paths = append(paths, files[i].Path())
	}
	if out.Generated, err = workspace.Generated(ctx, repoPath, paths); err != nil {
		return nil, err
	}
	return out, nil
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
