package workspace

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// journaled lands ws up to BeforeMove and stops there, as a kill right
// after the journal write would: it returns the move the journal holds.
func journaled(t *testing.T, repo string, ws Workspace, checkout string) Move {
	t.Helper()
	var m Move
	stop := errors.New("stop before the move")
	_, err := Land(context.Background(), repo, ws, LandRequest{Message: "Land", BeforeMove: func(old, next string) error {
		m = Move{BaseRef: "refs/heads/" + ws.BaseBranch, Old: old, Next: next, Checkout: checkout}
		return stop
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("Land = %v", err)
	}
	return m
}

// Each side of a move, found after the fact; the half-made one (files and
// index moved, the branch not: real git stopped by a failing
// reference-transaction hook between the two) is finished, and the
// person's uncommitted and untracked files are as they were throughout.
func TestRecoverMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const settle = 200 * time.Millisecond
	repo := newRepo(t, "")
	root := filepath.Join(t.TempDir(), "worktrees")
	ws := create(t, spec(repo, root))
	commitWS(t, ws, "agent", map[string]string{"a.txt": "one\ntwo, said the agent\nthree\n", "new.txt": "new\n"})
	gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, edited by the person\n")
	gittest.WriteFile(t, filepath.Join(repo, "notes.txt"), "the person's notes\n")
	status := git(t, repo, "status", "--porcelain")
	recover := func(m Move) (MoveState, error) { return RecoverMove(ctx, repo, m, settle) }

	// Killed before the move: nothing happened.
	m := journaled(t, repo, ws, repo)
	if s, err := recover(m); s != MoveNotMade || err != nil {
		t.Errorf("before the move: %s, %v", s, err)
	}
	// A landing commit that no longer exists never landed.
	gone := m
	gone.Next = strings.Repeat("0", 39) + "1"
	if s, err := recover(gone); s != MoveNotMade || err != nil {
		t.Errorf("an unknown commit: %s, %v", s, err)
	}

	// A lock git would hold while moving: recovery waits, then leaves it
	// all alone.
	lock := filepath.Join(repo, ".git", "index.lock")
	gittest.WriteFile(t, lock, "")
	began := time.Now()
	if _, err := recover(m); !errors.Is(err, ErrMoveUnsettled) || time.Since(began) < settle {
		t.Errorf("with index.lock held: %v after %s", err, time.Since(began))
	}
	if !exists(lock) || git(t, repo, "status", "--porcelain") != status {
		t.Fatal("recovery touched the lock or the checkout")
	}
	os.Remove(lock)

	// Killed between the files and the branch. Switchboard's own git runs
	// no hook, so the half-made move is made by the same fast-forward run
	// as git outside Switchboard, stopped by a reference-transaction hook
	// that refuses the branch's update: the files and the index have
	// moved, the branch has not.
	hook := filepath.Join(repo, ".git", "hooks", "reference-transaction")
	gittest.WriteFile(t, hook, "#!/bin/sh\n[ \"$1\" = prepared ] || exit 0\ngrep -q ' refs/heads/main$' && exit 1\nexit 0\n")
	if err := os.Chmod(hook, 0o700); err != nil {
		t.Fatal(err)
	}
	m = journaled(t, repo, ws, repo)
	ff := exec.Command("git", "-C", repo, "merge", "--ff-only", "--quiet", m.Next)
	if out, err := ff.CombinedOutput(); err == nil || gitLine(t, repo, "rev-parse", "main") != m.Old {
		t.Fatalf("fast-forward with the branch's update refused = %v: %s", err, out)
	}
	if half := git(t, repo, "status", "--porcelain"); !strings.Contains(half, "M  a.txt") {
		t.Fatalf("the checkout does not hold the half-made landing: %q", half)
	}
	os.Remove(hook)
	if s, err := recover(m); s != MoveFinished || err != nil {
		t.Fatalf("half made: %s, %v", s, err)
	}
	if tip := gitLine(t, repo, "rev-parse", "main"); tip != m.Next || git(t, repo, "status", "--porcelain") != status {
		t.Errorf("after finishing: main at %s (want %s), status %q (want %q)", tip, m.Next, git(t, repo, "status", "--porcelain"), status)
	}
	// Made, at the tip and once the base has moved on.
	if s, err := recover(m); s != MoveMade || err != nil {
		t.Errorf("made: %s, %v", s, err)
	}
	gittest.WriteFile(t, filepath.Join(repo, "later.txt"), "later\n")
	git(t, repo, "add", "later.txt")
	git(t, repo, "commit", "-q", "-m", "later")
	if s, err := recover(m); s != MoveMade || err != nil {
		t.Errorf("made, then moved on: %s, %v", s, err)
	}
	// The checkout gone: still answered from the branch.
	m.Checkout = filepath.Join(t.TempDir(), "gone")
	if s, err := recover(m); s != MoveMade || err != nil {
		t.Errorf("checkout gone: %s, %v", s, err)
	}
}
