package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"github.com/switchboard-dev/switchboard/workspace"
)

// Sandbox is what the registry needs to confine a supervised agent: the
// folders no agent may see (Switchboard's data and runtime folders, the
// session bus's). The supervisor adds the person's keys and the CLI's
// own state under the agent's home.
type Sandbox struct {
	Hidden []string
}

// policyFor is what session agent may reach: its worktree, and in the
// repository's .git only what a worktree must write (the objects, its own
// admin folder, its own branch's ref folder and its log), never the config,
// the hooks, info/ or the person's branches, which would let it run code
// as the person at their next git or move their main. An agent in the
// repository's folder itself may write the folder, but not .git's config,
// hooks or info. nil when the registry confines nothing (no Sandbox).
func (r *Registry) policyFor(ctx context.Context, repoPath string, ws *store.Workspace, dir string, hidden []string) (*confine.Policy, error) {
	sb := r.sandbox
	if sb == nil {
		return nil, nil
	}
	p := &confine.Policy{Hidden: slices.Concat(sb.Hidden, hidden)}
	common, err := workspace.CommonDir(ctx, repoPath)
	if err != nil {
		if ws != nil {
			return nil, err
		}
		common = "" // not a git repository: only its folder
	}
	if ws == nil {
		p.Dir = repoPath
		p.Writable = append(p.Writable, repoPath)
		if common != "" {
			for _, d := range []string{"config", "hooks", "info"} {
				p.ReadOnly = append(p.ReadOnly, filepath.Join(common, d))
			}
		}
		return p, nil
	}
	// The repository's .git read-only first: a repository under /tmp
	// would otherwise be hidden by the sandbox's private /tmp, and the
	// writable parts below are laid over it.
	p.ReadOnly = append(p.ReadOnly, common)
	admin, err := worktreeAdmin(common, ws.Path)
	if err != nil {
		return nil, err
	}
	p.Dir = dir
	p.Writable = append(p.Writable, ws.Path, filepath.Join(common, "objects"), admin)
	// What in its own admin folder points git elsewhere stays as git made
	// it.
	p.ReadOnly = append(p.ReadOnly, filepath.Join(admin, "commondir"), filepath.Join(admin, "gitdir"))
	own, err := ownRefFolder(ws.Branch)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"refs/heads", "logs/refs/heads"} {
		dir := filepath.Join(common, d, own)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("make %s: %w", d, err)
		}
		p.Writable = append(p.Writable, dir)
	}
	return p, nil
}

// ownRefFolder is the folder under refs/heads that holds branch and no
// other agent's: git updates a ref by writing a lock file beside it and
// renaming it into place, so the writable unit is a folder, and each
// session's branch has one of its own (switchboard/<short id>/<slug>). A
// branch made before that (switchboard/<short id>-<slug>) shares
// switchboard/ with the branches of that time.
func ownRefFolder(branch string) (string, error) {
	rest, ok := strings.CutPrefix(branch, workspace.BranchPrefix)
	if !ok || rest == "" || strings.Contains(branch, "..") {
		return "", fmt.Errorf("the session's branch %q is not one Switchboard made", branch)
	}
	return filepath.Dir(filepath.FromSlash(branch)), nil
}

// worktreeAdmin finds the worktree's folder under common/worktrees by the
// path each one records (gitdir), never by the worktree's own .git file,
// which its agent can rewrite.
func worktreeAdmin(common, worktree string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		return "", fmt.Errorf("list the repository's worktrees: %w", err)
	}
	want := filepath.Join(worktree, ".git")
	for _, e := range entries {
		dir := filepath.Join(common, "worktrees", e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "gitdir"))
		if err == nil && strings.TrimSpace(string(b)) == want {
			return dir, nil
		}
	}
	return "", fmt.Errorf("the repository records no worktree at %s", worktree)
}
