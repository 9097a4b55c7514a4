package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrHasCommit is returned by FirstCommit for a repository whose branch has
// a commit already.
var ErrHasCommit = errors.New("the repository has a commit already")

// FirstCommit gives a repository with no commit yet its first: an empty
// one on the branch HEAD names, which agents' worktrees can then start
// from. It is made with git's plumbing (an empty tree, commit-tree,
// update-ref with the branch required not to exist), so nothing of the
// person's is touched: what is staged stays staged, what is in the folder
// stays there, no hook runs, and a branch made meanwhile is not
// overwritten. It returns the commit.
func FirstCommit(ctx context.Context, repoPath string) (string, error) {
	if _, err := resolveCommit(ctx, repoPath, "HEAD"); err == nil {
		return "", ErrHasCommit
	}
	branch, err := CurrentBranch(ctx, repoPath)
	if err != nil {
		return "", fmt.Errorf("first commit: %w", err)
	}
	// The person's commit, in the person's name: never one guessed from
	// the machine.
	if err := checkIdentity(ctx, repoPath); err != nil {
		return "", fmt.Errorf("first commit: %w", err)
	}
	tree, err := gitcmd.RunInput(ctx, repoPath, nil, "mktree")
	if err != nil {
		return "", fmt.Errorf("first commit: the empty tree: %w", err)
	}
	out, err := gitcmd.Run(ctx, repoPath, "commit-tree", "-m", "First commit", "--end-of-options", strings.TrimSpace(string(tree)))
	if err != nil {
		return "", fmt.Errorf("first commit: %w", err)
	}
	commit := strings.TrimSpace(string(out))
	// An empty old value: the branch must not exist, so a first commit
	// the person made in between is never replaced.
	if _, err := gitcmd.Run(ctx, repoPath, "update-ref", "-m", "switchboard: first commit", "refs/heads/"+branch, commit, ""); err != nil {
		return "", fmt.Errorf("first commit on %s: %w", branch, err)
	}
	return commit, nil
}
