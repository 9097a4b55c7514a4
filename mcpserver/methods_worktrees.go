package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodWorkspaceList    Name[NoArgs, WorkspaceList]                = "workspace.list"
	MethodWorkspaceDiscard Name[WorkspaceDiscardArgs, WorkspaceEntry] = "workspace.discard"
)

// maxListedWorktrees bounds workspace.list: the newest sessions' worktrees.
const maxListedWorktrees = 200

// diskUseTimeout bounds the measuring of all the listed worktrees' disk
// use together: a worktree with a huge build folder must not hold the
// list up; those not measured in time are listed without a figure.
const diskUseTimeout = 5 * time.Second

// WorkspaceEntry is one session's worktree and what is in it.
type WorkspaceEntry struct {
	SessionID    string             `json:"session_id"`
	RepositoryID string             `json:"repository_id"`
	SessionState store.SessionState `json:"session_state"`
	Workspace    store.Workspace    `json:"workspace"`
	// Gone is set when the worktree's folder no longer exists (discarded).
	Gone bool `json:"gone,omitempty"`
	// State is git's account of it; nil when Gone or when git failed
	// (Problem says why).
	State   *workspace.State `json:"state,omitempty"`
	Problem string           `json:"problem,omitempty"`
	// DiskBytes is the disk the worktree's folder takes (allocated
	// blocks, its .git pointer file aside). Best effort: absent when the
	// folder is gone or could not be measured in time.
	DiskBytes int64 `json:"disk_bytes,omitempty" jsonschema:"the disk the worktree's folder takes, in bytes; absent when it could not be measured"`
}

// WorkspaceList is the result of workspace.list.
type WorkspaceList struct {
	Workspaces []WorkspaceEntry `json:"workspaces"`
}

// WorkspaceDiscardArgs are the arguments of workspace.discard.
type WorkspaceDiscardArgs = SessionArg

func (r *Registry) registerWorktrees() {
	list := Define(MethodWorkspaceList, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The agents' worktrees, newest session first, with what each holds that is not on its base branch.",
		func(c *Call, _ NoArgs) (WorkspaceList, error) {
			v := c.Prepared
			out, _ := v.(WorkspaceList)
			return out, nil
		})
	list.Prepare = r.listWorktrees
	r.Register(list)
	discard := Define(MethodWorkspaceDiscard, On(Session, store.CapAdmin), Hidden,
		"Take an ended session's worktree away at the person's word. What was uncommitted is committed first and its branch is kept, so every commit stays reachable.",
		func(c *Call, in WorkspaceDiscardArgs) (WorkspaceEntry, error) {
			v := c.Prepared
			out, _ := v.(WorkspaceEntry)
			data := fmt.Appendf(nil, `{"discarded":%q}`, out.Workspace.Path)
			if _, err := c.Tx.AppendTrace(in.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, Data: data}); err != nil {
				return WorkspaceEntry{}, err
			}
			return out, nil
		})
	discard.Prepare = r.discardWorktree
	r.Register(discard)
}

// listWorktrees reads the sessions with worktrees, then asks git about each,
// outside every transaction.
func (r *Registry) listWorktrees(c *Call) (any, error) {
	var sessions []store.Session
	var repoPaths map[string]string
	err := r.prepareView(c, func(tx *store.Tx) error {
		all, err := tx.Sessions(store.SessionFilter{Limit: 1000})
		sessions = sessions[:0] // the function may run twice
		repoPaths = map[string]string{}
		for _, s := range all {
			if s.Workspace != nil && len(sessions) < maxListedWorktrees {
				sessions = append(sessions, s)
				repoPaths[s.RepositoryID] = workspaceRepo(tx, s)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	out := WorkspaceList{Workspaces: []WorkspaceEntry{}}
	for _, s := range sessions {
		out.Workspaces = append(out.Workspaces, worktreeEntry(ctx, s, repoPaths[s.RepositoryID]))
	}
	dctx, dcancel := context.WithTimeout(ctx, diskUseTimeout)
	defer dcancel()
	for i := range out.Workspaces {
		e := &out.Workspaces[i]
		if e.Gone {
			continue
		}
		use, err := workspace.MeasureDisk(dctx, e.Workspace.Path)
		if err != nil {
			// Only the session: the error names paths, and the figure is
			// a convenience the list does without.
			r.log.Debug("disk use of a worktree not measured", "session", e.SessionID, "timeout", dctx.Err() != nil)
			continue
		}
		e.DiskBytes = use.Bytes
	}
	return out, nil
}

// worktreeEntry is s's worktree, looked into with git from the repository
// at repoPath.
func worktreeEntry(ctx context.Context, s store.Session, repoPath string) WorkspaceEntry {
	e := WorkspaceEntry{SessionID: s.ID, RepositoryID: s.RepositoryID, SessionState: s.State, Workspace: *s.Workspace}
	if _, err := os.Stat(s.Workspace.Path); errors.Is(err, os.ErrNotExist) {
		e.Gone = true
		return e
	}
	st, err := workspace.Status(ctx, gitWorkspace(s.Workspace, repoPath))
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	e.State = &st
	return e
}

// discardWorktree commits what is uncommitted in an ended session's
// worktree and removes the worktree, keeping its branch (workspace.Remove
// with force): nothing the agent wrote becomes unreachable.
func (r *Registry) discardWorktree(c *Call) (any, error) {
	s, repoPath, err := r.prepareSession(c)
	switch {
	case err != nil:
		return nil, err
	case s.Workspace == nil:
		return nil, store.Deny(store.CodeInvalidState, "session %s has no worktree", s.ID)
	case s.State.Live():
		return nil, store.Deny(store.CodeInvalidState, "session %s still runs: stop its agent first", s.ID)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	r.removing.Lock()
	defer r.removing.Unlock()
	e := worktreeEntry(ctx, s, repoPath)
	if e.Gone {
		return nil, store.Deny(store.CodeInvalidState, "the worktree of %s is gone already", s.ID)
	}
	ws := gitWorkspace(s.Workspace, repoPath)
	if _, _, err := workspace.CommitAll(ctx, ws, workspace.Commit{
		Message:  "Work left uncommitted when its worktree was discarded",
		Trailers: []string{"Switchboard-Session: " + s.ID},
	}); err != nil {
		return nil, err
	}
	if err := workspace.Remove(ctx, ws, true); err != nil && !errors.Is(err, workspace.ErrBranchKept) {
		return nil, err
	}
	e.Gone, e.State = true, nil
	return e, nil
}

// gitWorkspace is the workspace package's form of a session's worktree in
// the repository at repoPath, from whose records git is told the
// worktree's git folders (never from the worktree's own .git file).
func gitWorkspace(w *store.Workspace, repoPath string) workspace.Workspace {
	return workspace.Workspace{Path: w.Path, Branch: w.Branch, BaseBranch: w.BaseBranch, BaseCommit: w.BaseCommit, RepoPath: repoPath}
}

// workspaceRepo is the folder of s's repository on this instance. A
// repository no longer registered, or with no folder here, gives "", and
// git in the worktree is then refused with why (workspace.Workspace.Tree).
func workspaceRepo(tx *store.Tx, s store.Session) string {
	repo, err := tx.Repository(s.RepositoryID)
	if err != nil {
		return ""
	}
	return repo.Path
}

// TidyWorktree removes an ended session's worktree when nothing in it is
// lost by that: no uncommitted file, every commit on the base branch
// (landed, or none made). workspace.Remove decides, and refuses anything
// else; a refusal is the normal case of a worktree with work in it and is
// not logged as a failure. The branch goes with it only when git itself
// agrees it is merged. A session that ended with the app keeps its
// worktree whatever is in it: a resume continues there (agent.resume).
// Outside every transaction: git is slow I/O.
func (r *Registry) TidyWorktree(ctx context.Context, sessionID string) {
	var s store.Session
	var repoPath string
	if err := r.db.View(ctx, func(tx *store.Tx) error {
		var err error
		s, err = tx.Session(sessionID)
		repoPath = workspaceRepo(tx, s)
		return err
	}); err != nil || s.Workspace == nil || s.State.Live() || s.Resumable() {
		return
	}
	if _, err := os.Stat(s.Workspace.Path); err != nil {
		return // discarded, or gone by hand
	}
	ctx, cancel := context.WithTimeout(ctx, worktreeTimeout)
	defer cancel()
	r.removing.Lock()
	defer r.removing.Unlock()
	err := workspace.Remove(ctx, gitWorkspace(s.Workspace, repoPath), false)
	switch {
	case err == nil, errors.Is(err, workspace.ErrBranchKept):
		r.log.Info("removed a landed worktree", "session", sessionID, "path", s.Workspace.Path)
	case errors.Is(err, workspace.ErrDirty), errors.Is(err, workspace.ErrUnlanded):
		r.log.Debug("worktree kept: it holds work", "session", sessionID, "err", err)
	default:
		r.log.Warn("tidy a worktree", "session", sessionID, "err", err)
	}
}
