package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// Each command that can lose work is refused before git starts. The test
// runs them in a repository holding every kind of work they could lose
// (an untracked file, an uncommitted change, a stash, a side branch with
// its own commit, a linked worktree with a change) and checks all of it
// is still there afterwards.
func TestRunRefusesCommandsThatLoseWork(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	git(t, dir, "branch", "side")
	git(t, dir, "worktree", "add", "-q", filepath.Join(dir, ".wt"), "side")
	gittest.WriteFile(t, filepath.Join(dir, ".wt", "a.txt"), "side change\n")
	git(t, filepath.Join(dir, ".wt"), "commit", "-q", "-am", "side work")
	gittest.WriteFile(t, filepath.Join(dir, ".wt", "a.txt"), "uncommitted in the worktree\n")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "stashed\n")
	git(t, dir, "stash", "-q")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "uncommitted\n")
	gittest.WriteFile(t, filepath.Join(dir, "new.txt"), "untracked\n")
	before := snapshot(t, dir)

	for _, args := range [][]string{
		{"clean", "-fdx"},
		{"clean", "-n"},
		{"reset", "--hard"},
		{"reset", "--hard", "HEAD~0"},
		{"reset", "--ha"}, // git accepts any unambiguous prefix
		{"reset", "--merge"},
		{"reset", "--keep", "side"},
		{"-c", "core.x=y", "reset", "--hard"},
		{"checkout", "-f", "side"},
		{"checkout", "--force", "main"},
		{"checkout", "-qf", "side"},
		{"checkout", "--for", "main"},
		{"checkout", "-B", "side"},
		{"checkout", "--", "a.txt"},
		{"checkout", "HEAD", "--", "a.txt"},
		{"switch", "--discard-changes", "side"},
		{"switch", "-f", "side"},
		{"switch", "-C", "side"},
		{"restore", "a.txt"},
		{"rm", "-f", "a.txt"},
		{"rm", "-rf", "."},
		{"gc"},
		{"gc", "--prune=now"},
		{"prune"},
		{"prune", "--expire=now"},
		{"repack", "-ad"},
		{"maintenance", "run"},
		{"branch", "-D", "side"},
		{"branch", "-df", "side"},
		{"branch", "--delete", "--force", "side"},
		{"branch", "-f", "side", "HEAD~0"},
		{"branch", "-M", "main", "side"},
		{"push", "--force", "origin", "main"},
		{"push", "-f", "origin", "main"},
		{"push", "--force-with-lease=main", "origin", "main"},
		{"push", "origin", "+main"},
		{"push", "origin", ":side"},
		{"push", "--mirror", "origin"},
		{"update-ref", "-d", "refs/heads/side"},
		{"symbolic-ref", "--delete", "HEAD"},
		{"stash", "drop"},
		{"stash", "drop", "stash@{0}"},
		{"stash", "clear"},
		{"reflog", "expire", "--expire=now", "--all"},
		{"reflog", "delete", "HEAD@{0}"},
		{"worktree", "remove", "--force", ".wt"},
		{"worktree", "remove", "-f", ".wt"},
		{"merge", "--abort"},
		{"rebase", "--abort"},
		{"cherry-pick", "--skip"},
		{"read-tree", "-u", "--reset", "HEAD"},
		{"checkout-index", "-a", "-f"},
		{"--git-dir=.git", "status"},
		{"-C", "/", "status"},
		{"-c", "alias.st=clean -fdx", "st"},
	} {
		_, err := Run(context.Background(), dir, args...)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("git %s: err = %v, want ErrRefused", strings.Join(args, " "), err)
			continue
		}
		var ge *Error
		if errors.As(err, &ge) {
			t.Errorf("git %s: refused after running (%v)", strings.Join(args, " "), err)
		}
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// The safe relatives of refused commands pass the check.
func TestRefusalAllowsSafeForms(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"status", "--porcelain=v2", "-z"},
		{"worktree", "prune"},
		{"worktree", "remove", "/data/worktrees/r/s"},
		{"worktree", "add", "-b", "switchboard/x", "/p", "abc"},
		{"worktree", "add", "--force", "/p", "abc"},
		{"branch", "-d", "switchboard/x"},
		{"branch", "--delete", "switchboard/x"},
		{"branch", "--set-upstream-to=main", "switchboard/x"},
		{"reset"},
		{"reset", "--soft", "HEAD~1"},
		{"reset", "--mixed"},
		{"reset", "--", "a.txt"},
		{"checkout", "-b", "feature"},
		{"checkout", "side"},
		{"switch", "-c", "feature"},
		{"stash", "list"},
		{"stash", "push", "-m", "drop"},
		{"stash", "pop"},
		{"push", "origin", "main"},
		{"push", "--follow-tags", "origin", "main"},
		{"update-ref", "refs/heads/x", "abc", "def"},
		{"rm", "--cached", "a.txt"},
		{"merge", "--ff-only", "side"},
		{"merge", "--ff-only", "--no-autostash", "--quiet", "abc"},
		{"merge-tree", "--write-tree", "--no-messages", "-z", "--name-only", "abc", "def"},
		{"commit-tree", "-p", "abc", "-p", "def", "-F", "-", "tree"},
		{"update-ref", "-m", "switchboard: land", "refs/heads/main", "abc", "def"},
		{"merge", "--continue"},
		{"-c", "user.name=A Person", "-c", "user.email=a@b", "commit", "-F", "-"},
		{"diff", "--numstat", "-z", "a", "b", "--", "-f"},
		{"commit", "-m", "fix the -f flag"},
		{"reflog", "show"},
	} {
		if why := refusal(args); why != "" {
			t.Errorf("git %s refused: %s", strings.Join(args, " "), why)
		}
	}
}

// snapshot describes a repository's work: status, every file's content in
// both work trees, branches, stashes and the objects folder's listing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git(t, dir, "status", "--porcelain=v1", "--untracked-files=all"))
	b.WriteString(git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"))
	b.WriteString(git(t, dir, "stash", "list"))
	b.WriteString(git(t, dir, "worktree", "list", "--porcelain"))
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if info.Mode().IsRegular() && !strings.HasPrefix(rel, ".git/") || strings.HasPrefix(rel, ".git/objects/") {
			b.WriteString(rel + "\n")
			if info.Mode().IsRegular() && !strings.HasPrefix(rel, ".git/") {
				b.WriteString(gittest.ReadFile(t, p))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
