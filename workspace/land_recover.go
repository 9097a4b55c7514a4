package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrMoveUnsettled is returned by RecoverMove when a lock git takes for
// the move is still held after the wait: a git still running, or one
// killed half way, whose lock file (index.lock) only a person may judge.
// Nothing was changed.
var ErrMoveUnsettled = errors.New("git still holds a lock of the landing")

// Move is a landing's move of a base branch, as recorded before it was
// made (LandRequest.BeforeMove).
type Move struct {
	// BaseRef is the full ref ("refs/heads/main").
	BaseRef string
	// Old is its tip before, Next the landing commit it moves to.
	Old, Next string
	// Checkout is the work tree that had BaseRef checked out, "" when
	// none did.
	Checkout string
}

// MoveState is which side of a move a base branch is on.
type MoveState string

const (
	// MoveMade: the base branch has Next (at it, or moved on from it).
	MoveMade MoveState = "made"
	// MoveNotMade: the base branch does not have Next; nothing of the
	// landing is in the checkout.
	MoveNotMade MoveState = "not_made"
	// MoveFinished: the checkout's index and files had taken Next but
	// the branch was still at Old (git stopped between the two);
	// RecoverMove moved the branch, and the move is now made.
	MoveFinished MoveState = "finished"
)

// RecoverMove finds out, after a crash, whether m was made, and finishes
// the one case git can leave half done. It first waits, up to settle,
// while a lock of the move is held: the git a killed Switchboard started
// goes on running without it, and deciding before it ends would decide
// wrong.
//
// `git merge --ff-only`, which moves a checked-out base, writes the files,
// then the index, then the branch. Killed after the index, it leaves the
// checkout holding Next under a branch still at Old: every change of the
// landing would show as staged, undone. RecoverMove then moves the branch
// to Next with update-ref (expecting Old), which makes the checkout whole
// again without touching a file. Killed before the index, it leaves
// index.lock, and RecoverMove answers ErrMoveUnsettled rather than delete
// a lock it cannot prove is not the person's. The fast-forward never
// starts a merge (no MERGE_HEAD) and never writes conflict markers: the
// landing's tree was computed in the object store.
func RecoverMove(ctx context.Context, repoPath string, m Move, settle time.Duration) (MoveState, error) {
	s, err := recoverMove(ctx, repoPath, m, settle)
	if err != nil {
		return "", fmt.Errorf("recover the landing of %s on %s: %w", m.Next, m.BaseRef, err)
	}
	return s, nil
}

func recoverMove(ctx context.Context, repoPath string, m Move, settle time.Duration) (MoveState, error) {
	if !strings.HasPrefix(m.BaseRef, "refs/heads/") || !fullID(m.Old) || !fullID(m.Next) {
		return "", fmt.Errorf("move %+v: want a branch and two full commit ids", m)
	}
	var checkout *gitcmd.Tree
	if m.Checkout != "" {
		if _, err := os.Stat(m.Checkout); err == nil {
			t, err := checkoutTree(ctx, repoPath, m.Checkout)
			if err != nil {
				return "", err
			}
			checkout = &t
		} // else gone: nothing there to finish or to wait for
	}
	if err := waitUnlocked(ctx, repoPath, checkout, m.BaseRef, settle); err != nil {
		return "", err
	}
	// A landing commit no object names was never on any branch.
	if _, err := gitcmd.Run(ctx, repoPath, "cat-file", "-e", m.Next+"^{commit}"); err != nil {
		if _, ok := gitcmd.ExitCode(err); ok {
			return MoveNotMade, nil
		}
		return "", err
	}
	base, err := resolveCommit(ctx, repoPath, m.BaseRef)
	if err != nil {
		return "", err
	}
	if made, err := isAncestor(ctx, repoPath, m.Next, base); err != nil {
		return "", err
	} else if made {
		return MoveMade, nil
	}
	if base != m.Old || checkout == nil {
		return MoveNotMade, nil
	}
	half, err := indexHolds(ctx, repoPath, *checkout, m)
	if err != nil || !half {
		return MoveNotMade, err
	}
	if err := updateRef(ctx, repoPath, m.BaseRef, m.Old, m.Next); err != nil {
		return "", err
	}
	return MoveFinished, nil
}

func fullID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// checkoutTree is the work tree at path of the repository at repoPath, as
// `git worktree list` has it, with its git folders (treeAt).
func checkoutTree(ctx context.Context, repoPath, path string) (gitcmd.Tree, error) {
	common, err := gitcmd.CommonDir(ctx, repoPath)
	if err != nil {
		return gitcmd.Tree{}, err
	}
	trees, err := List(ctx, repoPath, "")
	if err != nil {
		return gitcmd.Tree{}, err
	}
	for i, w := range trees {
		if gitcmd.SameFolder(w.Path, path) {
			return treeAt(ctx, common, trees, i)
		}
	}
	return gitcmd.Tree{}, fmt.Errorf("%s is no work tree of %s", path, repoPath)
}

// indexHolds reports whether the work tree t, with m.BaseRef checked
// out, has in its index Next's version of every path the landing changes.
func indexHolds(ctx context.Context, repoPath string, t gitcmd.Tree, m Move) (bool, error) {
	head, err := gitcmd.RunTree(ctx, t, "symbolic-ref", "--quiet", "HEAD")
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return false, nil // detached
	} else if err != nil {
		return false, err
	}
	if strings.TrimSpace(string(head)) != m.BaseRef {
		return false, nil
	}
	changed, err := diffPaths(ctx, repoPath, m.Old, m.Next)
	if err != nil || len(changed) == 0 {
		return false, err
	}
	// The paths where the index differs from Next: none of the landing's
	// may be among them.
	out, err := gitcmd.RunTree(ctx, t, "diff-index", "--cached", "--name-only", "-z", "--no-renames", "--ignore-submodules=none", m.Next, "--")
	if err != nil {
		return false, fmt.Errorf("compare the index of %s with %s: %w", t.WorkTree, m.Next, err)
	}
	differs := map[string]bool{}
	for _, p := range splitZ(out) {
		differs[p] = true
	}
	for _, c := range changed {
		if differs[c.path] {
			return false, nil
		}
	}
	return true, nil
}

// waitUnlocked waits, up to settle, until neither the checkout's index
// (when checkout is set) nor ref is locked by git.
func waitUnlocked(ctx context.Context, repoPath string, checkout *gitcmd.Tree, ref string, settle time.Duration) error {
	var locks []string
	out, err := gitcmd.Run(ctx, repoPath, "rev-parse", "--path-format=absolute", "--git-path", ref+".lock")
	if err != nil {
		return fmt.Errorf("git path %s.lock in %s: %w", ref, repoPath, err)
	}
	locks = append(locks, strings.TrimSpace(string(out)))
	if checkout != nil {
		p, err := gitPath(ctx, *checkout, "index.lock")
		if err != nil {
			return err
		}
		locks = append(locks, p)
	}
	deadline := time.Now().Add(settle)
	for {
		held := ""
		for _, l := range locks {
			if _, err := os.Lstat(l); err == nil {
				held = l
				break
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		if held == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s (if no git runs there, a git killed while landing left it: check the checkout and remove it)", ErrMoveUnsettled, held)
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
