package workspace

// Moving a base branch to a landing's commit: by update-ref where no
// work tree has it checked out, by a fast-forward of the person's checkout
// where one does, after checking that nothing of theirs is in the way.
// Every work tree is reached with its git folders named (treeAt): any of
// them may be an agent's, .git file and all.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// diffPaths lists the paths that differ between commits a and b, a
// rename as its two paths.
func diffPaths(ctx context.Context, repoPath, a, b string) ([]pathChange, error) {
	out, err := gitcmd.Run(ctx, repoPath, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
		"--ignore-submodules=none", a, b, "--")
	if err != nil {
		return nil, fmt.Errorf("paths changed: %w", err)
	}
	f := splitZ(out)
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("diff --name-status: odd number of fields")
	}
	var changes []pathChange
	for i := 0; i < len(f); i += 2 {
		changes = append(changes, pathChange{status: f[i], path: f[i+1]})
	}
	return changes, nil
}

// pathChange is one line of diff --name-status: A, M, D or T, and a path.
type pathChange struct {
	status, path string
}

// moveBase moves refs/heads/<base> from old to next, which must descend
// from old; changed are the paths that differ between them. before, when
// set, is called once every check has passed, just before git moves
// anything (LandRequest.BeforeMove).
func moveBase(ctx context.Context, repoPath, base, old, next string, changed []pathChange, before func(old, next string) error) error {
	common, err := gitcmd.CommonDir(ctx, repoPath)
	if err != nil {
		return err
	}
	out, err := gitcmd.Run(ctx, repoPath, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return fmt.Errorf("list worktrees: %w", err)
	}
	trees, err := parseWorktreeList(out)
	if err != nil {
		return err
	}
	baseRef := "refs/heads/" + base
	var checkout *gitcmd.Tree
	for i, w := range trees {
		if w.Bare || w.Prunable {
			continue
		}
		// Only a checkout of the base, or a detached HEAD that may be
		// rebasing it, is looked into.
		if w.Branch != base && !w.Detached {
			continue
		}
		t, err := treeAt(ctx, common, trees, i)
		if err != nil {
			return err
		}
		if w.Branch == base {
			checkout = &t
			continue
		}
		// A rebase detaches HEAD and writes the branch back when it
		// finishes, over whatever we put there.
		if name, ok, err := rebasing(ctx, t); err != nil {
			return err
		} else if ok && name == baseRef {
			return &DirtyError{Path: w.Path, Reason: fmt.Sprintf("%s is being rebased in %s", base, w.Path)}
		}
	}
	// A lock git left on the ref (a git killed while moving it) would
	// fail the move after the caller recorded it as under way.
	lock, err := gitcmd.Run(ctx, repoPath, "rev-parse", "--path-format=absolute", "--git-path", baseRef+".lock")
	if err != nil {
		return fmt.Errorf("git path %s.lock: %w", baseRef, err)
	}
	if err := lockHeld(strings.TrimSpace(string(lock)), repoPath); err != nil {
		return err
	}
	if checkout == nil {
		if before != nil {
			if err := before(old, next); err != nil {
				return err
			}
		}
		return updateRef(ctx, repoPath, baseRef, old, next)
	}
	return fastForward(ctx, *checkout, baseRef, old, next, changed, before)
}

// lockHeld returns a *DirtyError when git's lock file lock exists: a git
// runs in dir, or one was stopped half way and left it. Only a person can
// tell which, so it is never removed here.
func lockHeld(lock, dir string) error {
	if _, err := os.Lstat(lock); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	return &DirtyError{Path: dir, Files: []string{lock},
		Reason: "git's lock file is there: a git is running in " + dir + ", or one was stopped half way and left it (if none runs, remove the file and land again)"}
}

// treeAt is the work tree trees[i] of `git worktree list`, with its git
// folders as the repository whose common git folder is common records
// them: git lists the main work tree first, whose git folder is the common
// one; a linked worktree's is its entry under common/worktrees.
func treeAt(ctx context.Context, common string, trees []Listed, i int) (gitcmd.Tree, error) {
	if i == 0 && !trees[0].Bare {
		return gitcmd.MainTree(common, trees[0].Path), nil
	}
	return gitcmd.LinkedTree(ctx, common, trees[i].Path)
}

// updateRef moves ref from old to next, or refuses with ErrBaseMoved when
// it no longer points at old.
func updateRef(ctx context.Context, repoPath, ref, old, next string) error {
	_, err := gitcmd.Run(ctx, repoPath, "update-ref", "-m", "switchboard: land", ref, next, old)
	if err == nil {
		return nil
	}
	if now, rerr := resolveCommit(ctx, repoPath, ref); rerr == nil && now != old {
		return fmt.Errorf("%w: %s is at %s, not %s", ErrBaseMoved, ref, now, old)
	}
	return fmt.Errorf("move %s: %w", ref, err)
}

// fastForward moves the checked-out ref from old to next with `git merge
// --ff-only` in the work tree t, after checking that nothing there is in
// the way.
func fastForward(ctx context.Context, t gitcmd.Tree, ref, old, next string, changed []pathChange, before func(old, next string) error) error {
	dir := t.WorkTree
	if op, err := inProgress(ctx, t); err != nil {
		return err
	} else if op != "" {
		return &DirtyError{Path: dir, Reason: fmt.Sprintf("a %s is in progress in %s", op, dir)}
	}
	if now, err := resolveCommit(ctx, t.CommonDir, ref); err != nil {
		return err
	} else if now != old {
		return fmt.Errorf("%w: %s is at %s, not %s", ErrBaseMoved, ref, now, old)
	}
	if err := inTheWay(ctx, t, changed); err != nil {
		return err
	}
	if lock, err := gitPath(ctx, t, "index.lock"); err != nil {
		return err
	} else if err := lockHeld(lock, dir); err != nil {
		return err
	}
	if before != nil {
		if err := before(old, next); err != nil {
			return err
		}
	}
	// --no-autostash: with merge.autoStash set, git would stash the
	// person's changes and put them back, maybe as a conflict.
	_, err := gitcmd.RunTree(ctx, t, "merge", "--ff-only", "--no-autostash", "--quiet", next)
	if err == nil {
		return nil
	}
	if now, rerr := resolveCommit(ctx, t.CommonDir, ref); rerr == nil && now != old {
		return fmt.Errorf("%w: %s is at %s, not %s", ErrBaseMoved, ref, now, old)
	}
	if werr := inTheWay(ctx, t, changed); werr != nil {
		return werr
	}
	// git refused for a reason the check above does not model (a file in
	// place of a folder the landing adds, say). git lists the paths it
	// would overwrite indented by a tab.
	var ge *gitcmd.Error
	if errors.As(err, &ge) {
		var files []string
		for _, l := range strings.Split(ge.Stderr, "\n") {
			if p, ok := strings.CutPrefix(l, "\t"); ok && strings.TrimSpace(p) != "" {
				files = append(files, strings.TrimSpace(p))
			}
		}
		if len(files) > 0 {
			return &DirtyError{Path: dir, Files: files, Reason: "git would overwrite files in " + dir}
		}
	}
	return fmt.Errorf("fast-forward %s in %s: %w", ref, dir, err)
}

// inTheWay returns a *DirtyError when the work tree t has, at a path in
// changed, an uncommitted change (staged or not), an untracked file or an
// ignored one (git overwrites ignored files without asking), or when it
// has unmerged paths at all.
func inTheWay(ctx context.Context, t gitcmd.Tree, changed []pathChange) error {
	dir := t.WorkTree
	out, err := gitcmd.RunTree(ctx, t, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return fmt.Errorf("status of %s: %w", dir, err)
	}
	st, err := parseStatus(out)
	if err != nil {
		return err
	}
	touched := map[string]bool{}
	for _, c := range changed {
		touched[c.path] = true
	}
	var files, unmerged []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, c := range st.Changed {
		if c.Status == "U" {
			unmerged = append(unmerged, c.Path)
		}
		if touched[c.Path] || c.OldPath != "" && touched[c.OldPath] {
			add(c.Path)
		}
	}
	if len(unmerged) > 0 {
		return &DirtyError{Path: dir, Files: unmerged, Reason: "unmerged files in " + dir}
	}
	removed, folders := map[string]bool{}, map[string]bool{}
	for _, c := range changed {
		if c.status == "D" {
			removed[c.path] = true
		}
	}
	for _, c := range changed {
		// A path the landing adds was not tracked at the old tip; a file
		// there now is untracked or ignored, and status lists only the
		// untracked. So is anything but a folder at a folder the path
		// needs, unless the landing removes it (tracked, then): git would
		// replace an ignored file there with the folder, and lose it.
		if c.status != "A" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(c.path))); err == nil {
			add(c.path)
		}
		// Up to the first folder that is there: those above it are too.
		for p := path.Dir(c.path); p != "." && !removed[p] && !folders[p]; p = path.Dir(p) {
			fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				continue
			}
			if fi.IsDir() {
				folders[p] = true
			} else {
				add(p)
			}
			break
		}
	}
	if len(files) > 0 {
		return &DirtyError{Path: dir, Files: files, Reason: "uncommitted or untracked files in " + dir + " at paths the landing changes"}
	}
	return nil
}

// inProgress names the operation stopped half way in the work tree t
// ("merge", "rebase", "cherry-pick", "revert"), or "" when there is none.
func inProgress(ctx context.Context, t gitcmd.Tree) (string, error) {
	for _, m := range []struct{ path, op string }{
		{"MERGE_HEAD", "merge"},
		{"REBASE_HEAD", "rebase"},
		{"rebase-merge", "rebase"},
		{"rebase-apply", "rebase"},
		{"CHERRY_PICK_HEAD", "cherry-pick"},
		{"REVERT_HEAD", "revert"},
	} {
		p, err := gitPath(ctx, t, m.path)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(p); err == nil {
			return m.op, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// rebasing returns the ref a rebase in the work tree t will write back
// when it finishes, if one is in progress.
func rebasing(ctx context.Context, t gitcmd.Tree) (string, bool, error) {
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		p, err := gitPath(ctx, t, d+"/head-name")
		if err != nil {
			return "", false, err
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", false, err
		}
		return strings.TrimSpace(string(b)), true, nil
	}
	return "", false, nil
}

// gitPath returns the absolute path of name in the work tree t's git
// folders (per work tree for MERGE_HEAD and the like, common for refs).
func gitPath(ctx context.Context, t gitcmd.Tree, name string) (string, error) {
	out, err := gitcmd.RunTree(ctx, t, "rev-parse", "--path-format=absolute", "--git-path", name)
	if err != nil {
		return "", fmt.Errorf("git path %s in %s: %w", name, t.WorkTree, err)
	}
	return strings.TrimSpace(string(out)), nil
}
