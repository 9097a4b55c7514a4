package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// Remove takes a worktree away only when nothing in it would be lost; what
// it refuses stays exactly as it was, and the person's checkout is never
// touched.
func TestRemove(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		force bool
		// prepare leaves the worktree in the state under test; the person's
		// repository is on main with work of their own in it.
		prepare func(t *testing.T, repo string, ws Workspace)
		is      error // nil: removed
		// branchKept: after a removal, the branch is still there.
		branchKept bool
	}{
		{
			name:    "no commits of its own",
			prepare: func(t *testing.T, repo string, ws Workspace) {},
		},
		{
			name: "commits landed on the base",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "landed.txt")
				landOn(t, repo, ws)
			},
		},
		{
			name: "modified file",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "uncommitted\n")
			},
			is: ErrDirty,
		},
		{
			name: "untracked file only",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				gittest.WriteFile(t, filepath.Join(ws.Path, "new", "notes.md"), "the agent's notes\n")
			},
			is: ErrDirty,
		},
		{
			name: "staged file only",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				gittest.WriteFile(t, filepath.Join(ws.Path, "staged.txt"), "s\n")
				git(t, ws.Path, "add", "staged.txt")
			},
			is: ErrDirty,
		},
		{
			name: "unlanded commits",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "unlanded.txt")
			},
			is: ErrUnlanded,
		},
		{
			name: "some commits landed, one not",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "landed.txt")
				landOn(t, repo, ws)
				commitIn(t, ws, "later.txt")
			},
			is: ErrUnlanded,
		},
		{
			name: "unlanded commit on the branch, agent switched away",
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "unlanded.txt")
				git(t, ws.Path, "switch", "-q", "--detach", ws.BaseCommit)
			},
			is: ErrUnlanded,
		},
		{
			name:  "discard with unlanded commits keeps the branch",
			force: true,
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "unlanded.txt")
			},
			branchKept: true,
		},
		{
			name:  "discard of a landed worktree deletes the branch",
			force: true,
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "landed.txt")
				landOn(t, repo, ws)
			},
		},
		{
			name:  "discard does not throw away uncommitted changes",
			force: true,
			prepare: func(t *testing.T, repo string, ws Workspace) {
				commitIn(t, ws, "unlanded.txt")
				gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "uncommitted\n")
			},
			is: ErrDirty,
		},
		{
			name:  "discard keeps commits that only a detached HEAD reaches",
			force: true,
			prepare: func(t *testing.T, repo string, ws Workspace) {
				git(t, ws.Path, "switch", "-q", "--detach")
				commitIn(t, ws, "headless.txt")
			},
			is: ErrUnlanded,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			git(t, repo, "branch", "develop")
			personWorks(t, repo)
			s := spec(repo, t.TempDir())
			s.Base = "develop"
			ws := create(t, s)
			tt.prepare(t, repo, ws)
			before := checkout(t, repo)
			worktreeBefore := checkout(t, ws.Path)
			tip := gitLine(t, repo, "rev-parse", ws.Branch)

			err := Remove(ctx, ws, tt.force)

			if after := checkout(t, repo); after != before {
				t.Fatalf("the person's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if tt.is != nil {
				var refused *RefusedError
				if !errors.Is(err, tt.is) || !errors.As(err, &refused) {
					t.Fatalf("Remove = %v, want a RefusedError matching %v", err, tt.is)
				}
				if after := checkout(t, ws.Path); after != worktreeBefore {
					t.Fatalf("a refused Remove changed the worktree:\nbefore:\n%s\nafter:\n%s", worktreeBefore, after)
				}
				if !branchExists(t, repo, ws.Branch) || len(mustList(t, repo, s.Root)) != 1 {
					t.Fatal("a refused Remove took the branch or git's record of the worktree")
				}
				return
			}
			if err != nil {
				t.Fatalf("Remove = %v", err)
			}
			if exists(ws.Path) || len(mustList(t, repo, s.Root)) != 0 {
				t.Error("the worktree is still there")
			}
			if got := branchExists(t, repo, ws.Branch); got != tt.branchKept {
				t.Errorf("branch exists = %v, want %v", got, tt.branchKept)
			}
			if tt.branchKept && gitLine(t, repo, "rev-parse", ws.Branch) != tip {
				t.Error("the kept branch moved")
			}
		})
	}
}

// What a refusal says: the files and the commits that would be lost.
func TestRemoveRefusalNamesTheWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	commitIn(t, ws, "one.txt")
	commitIn(t, ws, "two.txt")
	err := Remove(ctx, ws, false)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Unlanded != 2 || len(refused.Commits) != 2 || refused.Base != "main" || refused.OnlyHead {
		t.Fatalf("err = %#v", err)
	}
	if !strings.HasSuffix(refused.Commits[0], " add two.txt") || !strings.Contains(err.Error(), "2 commits not on main") {
		t.Errorf("message: %v", err)
	}
	if errors.Is(err, ErrDirty) {
		t.Error("a clean worktree's refusal matches ErrDirty")
	}
	gittest.WriteFile(t, filepath.Join(ws.Path, "wip.txt"), "w\n")
	err = Remove(ctx, ws, false)
	if !errors.As(err, &refused) || len(refused.Changed) != 1 || refused.Changed[0].Path != "wip.txt" || !strings.Contains(err.Error(), "wip.txt") {
		t.Errorf("dirty: err = %v", err)
	}
}

// The person's own checkout, or a folder inside a worktree, is never
// removed, whatever a caller passes.
func TestRemoveOnlyLinkedWorktrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	main := ws
	main.Path = repo
	if err := Remove(ctx, main, true); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("Remove of the main work tree: %v, want ErrNotWorktree", err)
	}
	inside := ws
	inside.Path = filepath.Join(ws.Path, "src")
	if err := Remove(ctx, inside, true); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("Remove of a folder inside: %v, want ErrNotWorktree", err)
	}
	gone := ws
	gone.Path = filepath.Join(t.TempDir(), "gone")
	if err := Remove(ctx, gone, true); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Remove of a missing folder: %v, want ErrNotExist", err)
	}
	if !exists(filepath.Join(repo, "a.txt")) || !exists(filepath.Join(ws.Path, "a.txt")) {
		t.Fatal("files went missing")
	}
}

// A landed branch git will not delete (the person has it checked out in a
// worktree of their own) stays; the worktree is still removed.
func TestRemoveKeepsABranchInUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	theirs := filepath.Join(t.TempDir(), "theirs")
	git(t, repo, "worktree", "add", "-q", "--force", theirs, ws.Branch)
	err := Remove(ctx, ws, false)
	if !errors.Is(err, ErrBranchKept) {
		t.Fatalf("Remove = %v, want ErrBranchKept", err)
	}
	if exists(ws.Path) || !branchExists(t, repo, ws.Branch) || !exists(filepath.Join(theirs, "a.txt")) {
		t.Error("want the worktree gone, the branch and the person's worktree kept")
	}
}

// Prune forgets only Switchboard's worktrees whose folders are gone; the
// person's own missing worktree and live ones stay listed.
func TestPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	root := t.TempDir()
	live := create(t, spec(repo, root))
	s := spec(repo, root)
	s.SessionID = "ses_deleted0"
	deleted := create(t, s)
	s.SessionID = "ses_headless"
	headless := create(t, s)
	git(t, headless.Path, "switch", "-q", "--detach")
	commitIn(t, headless, "only-on-head.txt")
	mine := filepath.Join(t.TempDir(), "on an unmounted disk")
	git(t, repo, "worktree", "add", "-q", "-b", "mine", mine)
	for _, p := range []string{deleted.Path, headless.Path, mine} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}

	pruned, err := Prune(ctx, repo, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != 1 || pruned[0] != deleted.Path {
		t.Errorf("pruned %q, want only %s", pruned, deleted.Path)
	}
	var paths []string
	for _, w := range mustList(t, repo, "") {
		paths = append(paths, w.Path)
	}
	want := []string{live.Path, headless.Path, mine}
	for _, p := range want {
		if !strings.Contains(strings.Join(paths, "\n"), p) {
			t.Errorf("%s no longer listed: %q", p, paths)
		}
	}
	if !branchExists(t, repo, deleted.Branch) {
		t.Error("Prune deleted the branch")
	}
	if pruned, err := Prune(ctx, repo, root); err != nil || len(pruned) != 0 {
		t.Errorf("second Prune = %q, %v", pruned, err)
	}
}

// commitIn commits a new file in ws.
func commitIn(t *testing.T, ws Workspace, name string) {
	t.Helper()
	gittest.WriteFile(t, filepath.Join(ws.Path, name), name+"\n")
	git(t, ws.Path, "add", name)
	git(t, ws.Path, "commit", "-q", "-m", "add "+name)
}

// landOn fast-forwards ws's base branch to its HEAD, the way a landing
// would; the base is not checked out anywhere, so no work tree moves.
func landOn(t *testing.T, repo string, ws Workspace) {
	t.Helper()
	git(t, repo, "update-ref", "refs/heads/"+ws.BaseBranch, gitLine(t, ws.Path, "rev-parse", "HEAD"))
}
