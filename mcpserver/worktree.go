package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/workspace"
)

// worktreeTimeout bounds making an agent's worktree: git checks out the
// base commit's files, which on a large repository takes seconds, and a
// hook or a filter that hangs must not keep the start waiting for ever.
const worktreeTimeout = 2 * time.Minute

// worktreePlan is what agent.start decided, in its transaction, about where
// the agent works; launch carries it out after the commit.
type worktreePlan struct {
	repo      store.Repository
	isolation store.Isolation
	base      string // "" is the branch checked out in repo.Path
	slug      string // the branch name's tail
	// sandbox is what the person adds to every agent's confinement,
	// read in the start's transaction.
	sandbox SandboxSettings
}

// agentWorkspace is a worktree made for a session, and the folder in it
// the agent starts in: the repository's folder may be below the top of its
// git repository, and the agent starts in the same place in the worktree.
type agentWorkspace struct {
	store.Workspace
	dir string
}

// workspaceFor makes the session's worktree when the plan asks for one and
// records it on the session (agent.workspace) before the agent starts, so
// its first claim already carries it. With none it returns why the agent
// works in the repository's folder ("none: …"), or "worktree".
func (r *Registry) workspaceFor(ctx context.Context, sessionID string, plan worktreePlan) (*agentWorkspace, string, error) {
	if plan.isolation == store.IsolationNone {
		return nil, "none: the repository's isolation is none, or the start asked for no worktree", nil
	}
	if r.worktrees == "" {
		return nil, "none: worktrees are made only by the running app", nil
	}
	ctx, cancel := context.WithTimeout(ctx, worktreeTimeout)
	defer cancel()
	isRepo, err := workspace.IsRepository(ctx, plan.repo.Path)
	if err != nil {
		return nil, "", err
	}
	if !isRepo {
		if plan.isolation == store.IsolationWorktree {
			return nil, "", fmt.Errorf("%s is not a git repository, and the repository's isolation is worktree", plan.repo.Path)
		}
		return nil, "none: " + plan.repo.Path + " is not a git repository", nil
	}
	sub, err := workspace.Subfolder(ctx, plan.repo.Path)
	if err != nil {
		return nil, "", err
	}
	made, err := workspace.Create(ctx, workspace.Spec{RepoPath: plan.repo.Path, Root: r.worktrees,
		RepositoryID: plan.repo.ID, SessionID: sessionID, Slug: plan.slug, Base: plan.base})
	if errors.Is(err, workspace.ErrNoCommit) {
		return nil, "", store.Deny(store.CodeRepositoryEmpty,
			"%s has no commit yet, and an agent's worktree starts from one: make an empty first commit "+
				"(switchboard repo first-commit %s; nothing in the folder or staged is touched), or let its agents work "+
				"in the folder itself (switchboard repo set %s --isolation none)", plan.repo.Name, plan.repo.ID, plan.repo.ID)
	}
	if err != nil {
		return nil, "", err
	}
	// Nothing has been done in the worktree yet when a step below fails:
	// removing it loses nothing (and Remove refuses if it would).
	abandon := func(err error) (*agentWorkspace, string, error) {
		if rmErr := workspace.Remove(ctx, made, false); rmErr != nil {
			r.log.Error("remove the worktree of a session that did not start", "session", sessionID, "err", rmErr)
		}
		return nil, "", err
	}
	inc, err := workspace.CopyIncluded(ctx, plan.repo.Path, made.Path)
	if err != nil {
		return abandon(err)
	}
	if inc.Files > 0 || len(inc.Skipped) > 0 {
		r.log.Info("copied .worktreeinclude files", "session", sessionID, "files", inc.Files, "bytes", inc.Bytes, "reflinks", inc.Cloned, "skipped", inc.Skipped)
	}
	ws := store.Workspace{Path: made.Path, Branch: made.Branch, BaseBranch: made.BaseBranch, BaseCommit: made.BaseCommit}
	if _, err := Invoke(ctx, r, OperatorPrincipal(), TransportSupervisor, MethodAgentWorkspace, AgentWorkspaceArgs{SessionID: sessionID, Workspace: ws}); err != nil {
		return abandon(fmt.Errorf("record the worktree: %w", err))
	}
	return &agentWorkspace{Workspace: ws, dir: filepath.Join(ws.Path, sub)}, "worktree", nil
}

// setupFor is the setup to run in a new worktree before its agent: the
// repository's setup command, else the worktree's executable
// .switchboard/setup, else none. Only the command goes through a shell
// (/bin/sh -c): it is the person's own, typed in the repository's
// settings as they would type it in a terminal, and may use pipes and
// &&. The file is run as a program, its path never parsed by a shell. A
// .switchboard/setup that is not executable is logged and not run.
func (r *Registry) setupFor(sessionID string, repo store.Repository, ws *agentWorkspace) *supervisor.Setup {
	if ws == nil {
		return nil // no setup in the person's own folder
	}
	if repo.Setup != "" {
		return &supervisor.Setup{Path: "/bin/sh", Args: []string{"-c", repo.Setup}, Label: repo.Setup}
	}
	path, err := workspace.FindSetup(ws.dir)
	if err != nil {
		r.log.Warn("setup not run", "session", sessionID, "err", err)
		return nil
	}
	if path == "" {
		return nil
	}
	return &supervisor.Setup{Path: path, Label: workspace.SetupFile}
}

// portBlockFree reports whether the block of store.PortBlock ports from
// first can be bound on loopback now: an agent told SWITCHBOARD_PORT must
// not find it taken by something already running.
func portBlockFree(first int) bool {
	for p := first; p < first+store.PortBlock; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}
