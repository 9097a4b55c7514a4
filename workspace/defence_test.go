package workspace

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// redirect replaces the worktree's .git file with "gitdir: .evil", a git
// folder of the agent's own whose config has a core.fsmonitor of its own,
// writing the marker "evil".
func redirect(t *testing.T, wt, markers string) {
	t.Helper()
	evil := filepath.Join(wt, ".evil")
	git(t, t.TempDir(), "init", "-q", "-b", "evil", "--separate-git-dir="+evil, t.TempDir())
	git(t, evil, "config", "core.fsmonitor", "echo evil > '"+filepath.Join(markers, "evil")+"'; false #")
	gittest.WriteFile(t, filepath.Join(wt, ".git"), "gitdir: .evil\n")
}

// Every kind of git call Switchboard makes, in a repository whose shared
// .git holds an fsmonitor and hooks, and in agents' worktrees whose .git
// files lead to git folders of their own: nothing planted runs, and each
// call acts on the repository's own record of the worktree.
func TestGitCallsTrustNothingTheAgentWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	markers := gittest.PlantTraps(t, repo)
	root := filepath.Join(t.TempDir(), "worktrees")
	ws := create(t, spec(repo, root))
	other := spec(repo, root)
	other.SessionID = "ses_0000aaaa1111bbbb2222"
	ws2 := create(t, other)
	// The second agent detached its HEAD, so landing looks into its git
	// folder for a rebase of the base.
	git(t, ws2.Path, "checkout", "-q", "--detach")
	if got := gittest.Fired(t, markers); len(got) > 0 {
		t.Fatalf("making the worktrees ran %v", got)
	}

	// The agent works, edits the tracked hooks in its worktree and points
	// its .git elsewhere; so does the other one.
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "one\ntwo, said the agent\nthree\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "new.txt"), "new\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, ".husky", "pre-commit"), "#!/bin/sh\necho edited > '"+filepath.Join(markers, "edited")+"'\n")
	redirect(t, ws.Path, markers)
	redirect(t, ws2.Path, markers)
	realHead := gitLine(t, repo, "rev-parse", "refs/heads/"+ws.Branch)

	var head string
	var landed Landed
	calls := []struct {
		name string
		call func() error
	}{
		{"status", func() error {
			st, err := Status(ctx, ws)
			if err == nil && (st.Branch != ws.Branch || st.Head != realHead || !st.Dirty) {
				err = errors.New("status is not the worktree's: " + st.Branch + " at " + st.Head)
			}
			return err
		}},
		{"changed files", func() error {
			files, err := ChangedFiles(ctx, ws)
			if err == nil && !strings.Contains(strings.Join(files, " "), "a.txt") {
				err = errors.New("changed files lack a.txt: " + strings.Join(files, " "))
			}
			return err
		}},
		{"work tree diff", func() error {
			d, err := WorkTreeDiff(ctx, ws)
			if err == nil && !strings.Contains(string(d), "+two, said the agent") {
				err = errors.New("the diff lacks the agent's change")
			}
			return err
		}},
		{"untracked", func() error { _, err := Untracked(ctx, ws); return err }},
		{"commit for the agent", func() error {
			created, h, err := CommitAll(ctx, ws, Commit{Message: "the agent's work"})
			head = h
			if err == nil && (!created || gitLine(t, repo, "rev-parse", "refs/heads/"+ws.Branch) != h) {
				err = errors.New("the commit is not on the worktree's branch")
			}
			return err
		}},
		{"diffstat", func() error { _, err := Diffstat(ctx, repo, ws.BaseCommit, head); return err }},
		{"diff", func() error { _, err := Diff(ctx, repo, ws.BaseCommit, head); return err }},
		{"worktree list", func() error {
			l, err := List(ctx, repo, root)
			if err == nil && len(l) != 2 {
				err = errors.New("want both worktrees listed")
			}
			return err
		}},
		{"land by merge", func() error {
			var err error
			landed, err = Land(ctx, repo, ws, LandRequest{Message: "Land"})
			if err == nil && gitLine(t, repo, "rev-parse", "main") != landed.Commit {
				err = errors.New("main did not move to the landing")
			}
			return err
		}},
		{"recover the move", func() error {
			s, err := RecoverMove(ctx, repo, Move{BaseRef: "refs/heads/main", Old: ws.BaseCommit, Next: landed.Commit, Checkout: repo}, 0)
			if err == nil && s != MoveMade {
				err = errors.New("the move is not found made: " + string(s))
			}
			return err
		}},
		{"prune", func() error { _, err := Prune(ctx, repo, root); return err }},
	}
	for _, c := range calls {
		if err := c.call(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := gittest.Fired(t, markers); len(got) > 0 {
			t.Fatalf("%s ran %v", c.name, got)
		}
	}
	if got := gittest.ReadFile(t, filepath.Join(repo, "a.txt")); got != "one\ntwo, said the agent\nthree\n" {
		t.Errorf("the person's checkout after landing: a.txt = %q", got)
	}
	// git refuses to remove a worktree whose .git no longer leads back to
	// the repository; nothing runs on the way, and nothing is removed.
	if err := Remove(ctx, ws, false); err == nil || !exists(ws.Path) {
		t.Errorf("Remove of a worktree with its .git redirected = %v", err)
	}
	if got := gittest.Fired(t, markers); len(got) > 0 {
		t.Fatalf("remove ran %v", got)
	}

	// The same status as git finds a worktree by itself runs the agent's
	// fsmonitor: the trap was real.
	cmd := exec.Command("git", "-C", ws.Path, "status")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain git status: %v: %s", err, out)
	}
	if got := gittest.Fired(t, markers); len(got) != 1 || got[0] != "evil" {
		t.Errorf("plain git status in the redirected worktree ran %v, want evil", got)
	}
}

// A Workspace without its repository's folder cannot be looked into: git
// would otherwise have to find the worktree's git folder from the
// worktree's .git file.
func TestWorkspaceNeedsItsRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	ws.RepoPath = ""
	if _, err := Status(ctx, ws); err == nil || !strings.Contains(err.Error(), "repository's folder") {
		t.Errorf("Status without RepoPath = %v", err)
	}
	ws.RepoPath = newRepo(t, "") // another repository: no record of the worktree
	if _, err := Status(ctx, ws); !errors.Is(err, gitcmd.ErrNotLinkedTree) {
		t.Errorf("Status with another repository = %v, want ErrNotLinkedTree", err)
	}
}
