package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// RangeStart is the commit a packet's range starts from on ws's branch:
// the packet's changes are the commits from it to the branch's head, and
// its write scope is checked on what changed since it.
//
// start is the first guess, where the packet's work began ("" for ws's
// base commit). But the base branch may have moved since, and the agent
// brought it in: the "send back, rebase onto the base and resolve" loop. Then the
// guess is no longer on the branch (a rebase rewrote it) or is behind the
// merge-base of the branch and the base (a rebase or a merge of the base
// moved past it), and the range starts at that merge-base instead, so that
// it holds the agent's own change and not the other work it was rebased
// onto. The uncommitted changes do not matter here: they become a commit
// on top of HEAD.
func RangeStart(ctx context.Context, ws Workspace, start string) (string, error) {
	if start == "" {
		start = ws.BaseCommit
	}
	// HEAD is the worktree's own: git is given its git folders from the
	// repository's records, not from the worktree's .git file.
	t, err := ws.Tree(ctx)
	if err != nil {
		return "", err
	}
	base := "refs/heads/" + ws.BaseBranch
	if _, err := gitcmd.RunTree(ctx, t, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
		if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
			return start, nil // the base branch is gone: nothing moved to measure against
		}
		return "", fmt.Errorf("find base branch %s: %w", ws.BaseBranch, err)
	}
	out, err := gitcmd.RunTree(ctx, t, "merge-base", "HEAD", base)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return start, nil // no common history: the base tells nothing
	} else if err != nil {
		return "", fmt.Errorf("merge-base of %s and %s: %w", ws.Branch, ws.BaseBranch, err)
	}
	mergeBase := strings.TrimSpace(string(out))
	if mergeBase == start {
		return start, nil
	}
	onBranch, err := isAncestorIn(ctx, t, start, "HEAD")
	if err != nil {
		return "", err
	}
	if !onBranch {
		return mergeBase, nil
	}
	behind, err := isAncestorIn(ctx, t, start, mergeBase)
	if err != nil {
		return "", err
	}
	if behind {
		return mergeBase, nil
	}
	return start, nil
}

// isAncestorIn reports whether commit a is b or an ancestor of b in the work
// tree t.
func isAncestorIn(ctx context.Context, t gitcmd.Tree, a, b string) (bool, error) {
	_, err := gitcmd.RunTree(ctx, t, "merge-base", "--is-ancestor", a, b)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("is %s an ancestor of %s: %w", a, b, err)
	}
	return true, nil
}

// Subfolder is where path lies below the top of its git work tree ("" at
// the top), as git says it.
func Subfolder(ctx context.Context, path string) (string, error) {
	out, err := gitcmd.Run(ctx, path, "rev-parse", "--show-prefix")
	if err != nil {
		return "", fmt.Errorf("find %s in its repository: %w", path, err)
	}
	return filepath.FromSlash(strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "/")), nil
}

// CommonDir is the git folder shared by the repository at path and all
// its worktrees (its .git), as an absolute path.
func CommonDir(ctx context.Context, path string) (string, error) {
	out, err := gitcmd.Run(ctx, path, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("find the git folder of %s: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}
