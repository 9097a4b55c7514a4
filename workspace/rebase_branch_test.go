package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// A packet behind main is rebased onto main's tip on a branch of its own:
// the new branch holds the packet's commits on main's tip, with their
// messages, and lands as exactly its change; a range that conflicts writes
// no branch. Either way the agent's branch, its worktree and the person's
// checkout (with their uncommitted work) are as they were.
func TestRebaseBranch(t *testing.T) {
	t.Parallel()
	for _, conflicting := range []bool{false, true} {
		name := map[bool]string{false: "clean", true: "conflict"}[conflicting]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			from := ws.BaseCommit
			to := commitWS(t, ws, "the agent's change", map[string]string{"a.txt": "one\ntwo, by the agent\nthree\n"})
			// main moves on: another file, or (conflicting) the same line.
			if conflicting {
				gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo, by the person\nthree\n")
			} else {
				gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, by the person\n")
			}
			git(t, repo, "commit", "-q", "-am", "the person's change")
			gittest.WriteFile(t, filepath.Join(repo, "notes.txt"), "untracked\n")
			gittest.WriteFile(t, filepath.Join(ws.Path, "scratch.txt"), "the agent's untracked file\n")
			before, wsBefore := checkout(t, repo), checkout(t, ws.Path)
			branchBefore := gitLine(t, repo, "rev-parse", ws.Branch)
			mainTip := gitLine(t, repo, "rev-parse", "main")

			req := RebaseRequest{Target: "main", From: from, To: to, Branch: ws.Branch + "-rebased"}
			r, err := RebaseBranch(ctx, repo, req)
			if conflicting {
				var c *ConflictError
				if !errors.As(err, &c) || !slices.Equal(c.Files, []string{"a.txt"}) {
					t.Fatalf("RebaseBranch = %+v, %v; want a conflict in a.txt", r, err)
				}
				if branchExists(t, repo, req.Branch) {
					t.Error("a conflicting rebase made its branch")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if r.Onto != mainTip || gitLine(t, repo, "rev-parse", req.Branch) != r.Head {
					t.Fatalf("rebased %+v; main at %s, branch at %s", r, mainTip, gitLine(t, repo, "rev-parse", req.Branch))
				}
				if got := gitLine(t, repo, "log", "--format=%s", r.Onto+".."+r.Head); got != "the agent's change" {
					t.Errorf("the new range holds %q", got)
				}
				if got := git(t, repo, "diff", "--name-only", r.Onto, r.Head); got != "a.txt\n" {
					t.Errorf("the new range changes %q, want a.txt", got)
				}
				// Again, with the branch recorded elsewhere: refused.
				if _, err := RebaseBranch(ctx, repo, req); !errors.Is(err, ErrBranchTaken) {
					t.Errorf("rebasing onto a taken branch: %v, want ErrBranchTaken", err)
				}
				// The new range lands as the packet's change alone.
				ws2 := ws
				ws2.Branch = req.Branch
				l, err := Land(ctx, repo, ws2, LandRequest{Mode: Merge, Message: "land", From: r.Onto, To: r.Head})
				if err != nil || l.Files != 1 {
					t.Fatalf("landing the rebased range: %+v, %v", l, err)
				}
				if got, _ := showFile(repo, "main", "a.txt"); got != "one\ntwo, by the agent\nthree\n" {
					t.Errorf("main's a.txt after landing: %q", got)
				}
				if got, _ := showFile(repo, "main", "src/b.txt"); got != "bee, by the person\n" {
					t.Errorf("main's src/b.txt after landing: %q", got)
				}
				before = checkout(t, repo) // the landing moved main, as it does
			}
			if got := checkout(t, repo); got != before {
				t.Errorf("the person's checkout changed:\n%s\nwant\n%s", got, before)
			}
			if got := checkout(t, ws.Path); got != wsBefore {
				t.Errorf("the agent's worktree changed:\n%s\nwant\n%s", got, wsBefore)
			}
			if got := gitLine(t, repo, "rev-parse", ws.Branch); got != branchBefore {
				t.Errorf("the agent's branch moved: %s, was %s", got, branchBefore)
			}
		})
	}
}

// A range that starts at the target's tip has nothing to rebase, and a
// bad branch name is refused before git writes anything.
func TestRebaseBranchRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	to := commitWS(t, ws, "change", map[string]string{"a.txt": "changed\n"})
	if _, err := RebaseBranch(ctx, repo, RebaseRequest{Target: "main", From: ws.BaseCommit, To: to, Branch: "x-rebased"}); !errors.Is(err, ErrNothingToLand) {
		t.Errorf("a range on main's tip: %v, want ErrNothingToLand", err)
	}
	if _, err := RebaseBranch(ctx, repo, RebaseRequest{Target: "main", From: ws.BaseCommit, To: to, Branch: "-x"}); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Errorf("branch -x: %v", err)
	}
	if branchExists(t, repo, "x-rebased") {
		t.Error("a refused rebase made its branch")
	}
}
