package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrDirty is matched (errors.Is) by a RefusedError whose worktree has
// uncommitted changes or untracked files.
var ErrDirty = errors.New("worktree has uncommitted changes")

// ErrUnlanded is matched by a RefusedError whose worktree has commits its
// base branch does not have.
var ErrUnlanded = errors.New("worktree has commits not landed on its base branch")

// ErrNotWorktree is returned by Remove for a path that is not a linked
// worktree's top folder: the person's own checkout above all.
var ErrNotWorktree = errors.New("not a linked worktree")

// ErrBranchKept is returned by Remove when the worktree is gone but git
// would not delete its landed branch (it is checked out elsewhere, say).
// Nothing is lost; the branch stays.
var ErrBranchKept = errors.New("worktree removed, branch kept")

// maxListed bounds the commits a RefusedError names.
const maxListed = 20

// RefusedError is Remove declining to remove a worktree, with what
// removing it would have lost.
type RefusedError struct {
	Path string
	// Changed are the uncommitted paths (ErrDirty).
	Changed []FileChange
	// Unlanded counts the commits not on the base branch (ErrUnlanded);
	// Commits names the first 20 as "<short id> <subject>".
	Unlanded int
	Commits  []string
	// Base is the base branch the commits are missing from.
	Base string
	// OnlyHead is true when some of those commits are on no branch at
	// all, only the worktree's detached HEAD: even a discard keeps them.
	OnlyHead bool
}

func (e *RefusedError) Error() string {
	var parts []string
	if len(e.Changed) > 0 {
		names := make([]string, 0, 5)
		for i, c := range e.Changed {
			if i == 5 {
				names = append(names, "…")
				break
			}
			names = append(names, c.Path)
		}
		parts = append(parts, fmt.Sprintf("%d uncommitted (%s)", len(e.Changed), strings.Join(names, ", ")))
	}
	if e.Unlanded > 0 {
		s := fmt.Sprintf("%d commits not on %s (%s)", e.Unlanded, e.Base, strings.Join(e.Commits, "; "))
		if e.OnlyHead {
			s += ", some on no branch but the worktree's HEAD"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("worktree %s not removed, it holds work: %s", e.Path, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrDirty) and errors.Is(err, ErrUnlanded) true
// for what the worktree holds.
func (e *RefusedError) Is(target error) bool {
	return target == ErrDirty && len(e.Changed) > 0 || target == ErrUnlanded && e.Unlanded > 0
}

// Remove removes ws's worktree when nothing in it would be lost, then
// deletes its branch when the branch has landed on BaseBranch.
//
// A worktree with uncommitted changes or untracked files is never
// removed: a *RefusedError matching ErrDirty lists them. A caller
// discarding a session commits them first (CommitAll), so they survive on
// the branch. One with commits not on BaseBranch is refused too (a
// RefusedError matching ErrUnlanded) unless force is set: force is for the
// discard a person asked for, and even then the branch is kept so its
// commits stay reachable; only commits that no branch reaches (a detached
// HEAD's) refuse it.
//
// Remove never runs clean, reset or worktree remove --force. The
// removal itself is a plain `git worktree remove`, which checks once
// more that the worktree is clean, closing the window in which an agent
// still running could write a file after the check here. The branch goes
// with `git branch -d`, which deletes only a branch merged into its
// upstream, set to BaseBranch just before; if git keeps it, the error
// wraps ErrBranchKept.
func Remove(ctx context.Context, ws Workspace, force bool) error {
	if err := remove(ctx, ws, force); err != nil {
		return fmt.Errorf("remove worktree %s: %w", ws.Path, err)
	}
	return nil
}

func remove(ctx context.Context, ws Workspace, force bool) error {
	if err := ws.check(); err != nil {
		return err
	}
	if _, err := os.Stat(ws.Path); err != nil {
		// git still lists it until Prune forgets it.
		return fmt.Errorf("worktree folder: %w", err)
	}
	t, err := ws.Tree(ctx)
	if errors.Is(err, gitcmd.ErrNotLinkedTree) {
		return fmt.Errorf("%w: %v", ErrNotWorktree, err)
	} else if err != nil {
		return err
	}
	common := t.CommonDir
	st, err := status(ctx, t, ws)
	if err != nil {
		return err
	}
	if st.Dirty {
		return &RefusedError{Path: ws.Path, Changed: st.Changed}
	}
	if st.Unlanded > 0 {
		tips, err := workTips(ctx, t, ws)
		if err != nil {
			return err
		}
		refused := &RefusedError{Path: ws.Path, Unlanded: st.Unlanded, Base: ws.BaseBranch}
		out, err := gitcmd.RunTree(ctx, t, append(append([]string{"rev-list", "--no-commit-header", "--format=%h %s",
			fmt.Sprintf("--max-count=%d", maxListed)}, tips...), "--not", "refs/heads/"+ws.BaseBranch, "--")...)
		if err != nil {
			return fmt.Errorf("list commits not on %s: %w", ws.BaseBranch, err)
		}
		refused.Commits = strings.Split(strings.TrimSpace(string(out)), "\n")
		// Removing the worktree takes its HEAD with it; what only HEAD
		// reaches would be left to the garbage collector.
		n, err := gitcmd.RunTree(ctx, t, "rev-list", "--count", "HEAD", "--not", "--branches", "--")
		if err != nil {
			return fmt.Errorf("commits on no branch: %w", err)
		}
		refused.OnlyHead = strings.TrimSpace(string(n)) != "0"
		if !force || refused.OnlyHead {
			return refused
		}
	}
	// From the common git folder, not from inside the folder going away.
	// git checks once more that the worktree is clean with a git of its
	// own there, given its git folder by git (not by the .git file), and
	// gitcmd's configuration (GIT_CONFIG_PARAMETERS); LinkedTree checked
	// that folder's commondir.
	if _, err := gitcmd.Run(ctx, common, "worktree", "remove", ws.Path); err != nil {
		return err
	}
	if st.Unlanded > 0 {
		return nil // a discard: the branch keeps the commits
	}
	return deleteLandedBranch(ctx, common, ws)
}

// deleteLandedBranch deletes ws.Branch with the safe `branch -d`. That
// checks "merged" against the branch's upstream, or else against the
// repository's HEAD, which is the person's checkout and may be on any
// branch; so the upstream is set to BaseBranch first, and git makes the
// final call on the commits as they are now.
func deleteLandedBranch(ctx context.Context, common string, ws Workspace) error {
	ref := "refs/heads/" + ws.Branch
	_, err := gitcmd.Run(ctx, common, "rev-parse", "--verify", "--quiet", ref)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return nil // already gone
	} else if err != nil {
		return err
	}
	if _, err := gitcmd.Run(ctx, common, "branch", "--quiet", "--set-upstream-to="+ws.BaseBranch, ws.Branch); err != nil {
		return fmt.Errorf("%w: %v", ErrBranchKept, err)
	}
	if _, err := gitcmd.Run(ctx, common, "branch", "--delete", ws.Branch); err != nil {
		return fmt.Errorf("%w: %v", ErrBranchKept, err)
	}
	return nil
}

// Listed is one worktree of a repository as git lists it.
type Listed struct {
	Path string `json:"path"`
	Head string `json:"head,omitempty"`
	// Branch is the short name of the branch checked out; "" when
	// detached or bare.
	Branch   string `json:"branch,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Bare     bool   `json:"bare,omitempty"`
	Locked   bool   `json:"locked,omitempty"`
	// LockReason is why, when the locker said.
	LockReason string `json:"lock_reason,omitempty"`
	// Prunable is true when its folder is gone; PrunableReason is git's
	// word for it.
	Prunable       bool   `json:"prunable,omitempty"`
	PrunableReason string `json:"prunable_reason,omitempty"`
}

// List returns the worktrees of the repository at repoPath whose folders
// are under root (with root's symbolic links resolved); root "" lists
// them all, the main work tree included.
func List(ctx context.Context, repoPath, root string) ([]Listed, error) {
	out, err := gitcmd.Run(ctx, repoPath, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("list worktrees of %s: %w", repoPath, err)
	}
	all, err := parseWorktreeList(out)
	if err != nil {
		return nil, fmt.Errorf("list worktrees of %s: %w", repoPath, err)
	}
	if root == "" {
		return all, nil
	}
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		roots = append(roots, real)
	}
	var under []Listed
	for _, w := range all {
		for _, r := range roots {
			if within(r, w.Path) {
				under = append(under, w)
				break
			}
		}
	}
	return under, nil
}

// within reports whether path is below root (not root itself).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// parseWorktreeList reads `git worktree list --porcelain -z`: one
// attribute per NUL-terminated field ("worktree <path>", "HEAD <oid>",
// "branch <ref>", "detached", "bare", "locked[ <reason>]",
// "prunable[ <reason>]"), a worktree's fields ending with an empty one.
func parseWorktreeList(out []byte) ([]Listed, error) {
	var list []Listed
	var cur *Listed
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			cur = nil
			continue
		}
		key, value, _ := strings.Cut(f, " ")
		if key == "worktree" {
			list = append(list, Listed{Path: value})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("worktree list: %q before any worktree", f)
		}
		switch key {
		case "HEAD":
			cur.Head = value
		case "branch":
			cur.Branch = strings.TrimPrefix(value, "refs/heads/")
		case "detached":
			cur.Detached = true
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked, cur.LockReason = true, value
		case "prunable":
			cur.Prunable, cur.PrunableReason = true, value
		}
		// Attributes a later git adds are skipped, not an error.
	}
	return list, nil
}

// Prune forgets the worktrees under root whose folders are gone (git's
// "prunable"), each with `git worktree remove`, and returns their paths.
// One it cannot forget does not stop the others; the error joins their
// reasons.
//
// It is not `git worktree prune`, which forgets every such worktree of the
// repository: the person's own worktree on a disk that is not mounted at
// the moment would lose its index and HEAD, and with a detached HEAD the
// only name of its commits. Entries of ours whose detached HEAD has
// commits on no branch are kept too, and locked ones.
func Prune(ctx context.Context, repoPath, root string) ([]string, error) {
	list, err := List(ctx, repoPath, root)
	if err != nil {
		return nil, fmt.Errorf("prune worktrees: %w", err)
	}
	var pruned []string
	var errs []error
	for _, w := range list {
		if !w.Prunable || w.Locked {
			continue
		}
		if w.Detached && w.Head != "" {
			n, err := gitcmd.Run(ctx, repoPath, "rev-list", "--count", w.Head, "--not", "--branches", "--")
			if err != nil {
				errs = append(errs, fmt.Errorf("prune worktree %s: %w", w.Path, err))
				continue
			}
			if strings.TrimSpace(string(n)) != "0" {
				continue
			}
		}
		// With its folder gone, worktree remove drops only git's record
		// of it; there is nothing left to delete on disk.
		if _, err := gitcmd.Run(ctx, repoPath, "worktree", "remove", w.Path); err != nil {
			errs = append(errs, fmt.Errorf("prune worktree %s: %w", w.Path, err))
			continue
		}
		pruned = append(pruned, w.Path)
	}
	return pruned, errors.Join(errs...)
}
