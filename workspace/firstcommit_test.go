package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// A first commit in an empty repository is an empty commit on the branch
// HEAD names, and nothing of the person's moves: a staged file stays
// staged, an untracked one stays in the folder. A repository with a commit
// is refused, and agents' worktrees can start from the first commit.
func TestFirstCommit(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "trunk")
	if _, err := FirstCommit(ctx, repo); !errors.Is(err, ErrNoIdentity) {
		t.Errorf("with no identity: %v; want ErrNoIdentity", err)
	}
	git(t, repo, "config", "user.name", "Test Person")
	git(t, repo, "config", "user.email", "person@example.test")
	gittest.WriteFile(t, filepath.Join(repo, "staged.txt"), "staged\n")
	git(t, repo, "add", "staged.txt")
	gittest.WriteFile(t, filepath.Join(repo, "loose.txt"), "loose\n")

	commit, err := FirstCommit(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if got := gitLine(t, repo, "rev-parse", "refs/heads/trunk"); got != commit {
		t.Errorf("trunk is at %s, want the first commit %s", got, commit)
	}
	if files := gitLine(t, repo, "ls-tree", "-r", "--name-only", commit); files != "" {
		t.Errorf("the first commit holds %q; want nothing", files)
	}
	if staged := gitLine(t, repo, "diff", "--cached", "--name-only"); staged != "staged.txt" {
		t.Errorf("staged after: %q; want staged.txt still staged", staged)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "loose.txt")); err != nil || string(b) != "loose\n" {
		t.Errorf("the untracked file: %q, %v", b, err)
	}
	if _, err := FirstCommit(ctx, repo); !errors.Is(err, ErrHasCommit) {
		t.Errorf("a second first commit: %v; want ErrHasCommit", err)
	}
	ws := create(t, spec(repo, t.TempDir()))
	if ws.BaseCommit != commit {
		t.Errorf("a worktree starts from %s, want %s", ws.BaseCommit, commit)
	}
}
