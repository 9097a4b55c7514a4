package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotLinkedTree is returned by LinkedTree for a folder that no
// linked worktree of the repository has as its top: the main work tree, a
// folder inside a worktree, a folder of another repository.
var ErrNotLinkedTree = errors.New("not a linked worktree of the repository")

// ErrUntrustedTree is returned by LinkedTree when a worktree's git folder
// is not as git made it, in a way that would let what the worktree's user
// wrote decide which repository or which configuration git uses: two
// worktrees claiming one folder, a commondir file naming another
// repository, a config.worktree git would read.
var ErrUntrustedTree = errors.New("the worktree's git folder was changed")

// Tree is a work tree with its git folders named, for RunTree. git is then
// told where the repository is (--git-dir, --work-tree, GIT_COMMON_DIR)
// instead of finding out from the work tree: a linked worktree's .git is a
// file holding "gitdir: <path>", and whoever works in the worktree can
// replace it with one naming a git folder of their own, with a config of
// their own (core.fsmonitor, filters), or rewrite the commondir file in its
// git folder to the same end. Build one with LinkedTree or MainTree, from
// the repository's own records, never from the work tree.
type Tree struct {
	// WorkTree is the work tree's top folder.
	WorkTree string
	// GitDir is its own git folder: <CommonDir>/worktrees/<name> for a
	// linked worktree (HEAD, index), CommonDir for the main work tree.
	GitDir string
	// CommonDir is the repository's git folder that its work trees share
	// (objects, refs, config).
	CommonDir string
}

// place is the Tree as arguments: -C the work tree (paths in git's output
// are relative to it), the two folders outright, and GIT_COMMON_DIR, which
// git takes over the commondir file in GitDir.
func (t Tree) place() place {
	for _, p := range []string{t.WorkTree, t.GitDir, t.CommonDir} {
		if p == "" || !filepath.IsAbs(p) {
			return place{err: fmt.Errorf("work tree %+v: every folder must be given, absolute", t)}
		}
	}
	return place{
		args: []string{"-C", t.WorkTree, "--git-dir=" + t.GitDir, "--work-tree=" + t.WorkTree},
		env:  []string{"GIT_COMMON_DIR=" + t.CommonDir},
	}
}

// MainTree is the main work tree at path of the repository whose common
// git folder is common: the main work tree's git folder is the common one.
func MainTree(common, path string) Tree {
	return Tree{WorkTree: path, GitDir: common, CommonDir: common}
}

// CommonDir returns the absolute path of the common git folder of the
// repository that dir (a folder the person owns: their checkout) is in.
func CommonDir(ctx context.Context, dir string) (string, error) {
	out, err := Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("find the git folder of %s: %w", dir, err)
	}
	common := strings.TrimSuffix(string(out), "\n")
	if !filepath.IsAbs(common) {
		return "", fmt.Errorf("find the git folder of %s: git answered %q", dir, common)
	}
	return common, nil
}

// LinkedTree returns the linked worktree whose top folder is path, as the
// repository with the common git folder common records it: the entry of
// common/worktrees whose gitdir file names path/.git. Nothing in path is
// read. It refuses (ErrUntrustedTree) an entry whose commondir file leads
// elsewhere, two entries for one folder, and a config.worktree that git
// would read (extensions.worktreeConfig set): that file is in the
// worktree's own git folder, which a confined agent may write, and its
// settings would apply to Switchboard's calls there.
func LinkedTree(ctx context.Context, common, path string) (Tree, error) {
	t, err := linkedTree(ctx, common, path)
	if err != nil {
		return Tree{}, fmt.Errorf("git folder of worktree %s: %w", path, err)
	}
	return t, nil
}

func linkedTree(ctx context.Context, common, path string) (Tree, error) {
	if !filepath.IsAbs(common) || !filepath.IsAbs(path) {
		return Tree{}, fmt.Errorf("%q and %q must be absolute", common, path)
	}
	want := map[string]bool{filepath.Join(filepath.Clean(path), ".git"): true}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		want[filepath.Join(real, ".git")] = true // git records the real path
	}
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Tree{}, err
	}
	var found []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		admin := filepath.Join(common, "worktrees", e.Name())
		b, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if errors.Is(err, os.ErrNotExist) {
			continue // not (or no longer) a worktree's entry
		} else if err != nil {
			return Tree{}, err
		}
		if want[filepath.Clean(strings.TrimSpace(string(b)))] {
			found = append(found, admin)
		}
	}
	switch {
	case len(found) == 0:
		return Tree{}, fmt.Errorf("%w: no entry under %s names it", ErrNotLinkedTree, filepath.Join(common, "worktrees"))
	case len(found) > 1:
		return Tree{}, fmt.Errorf("%w: %s all name it", ErrUntrustedTree, strings.Join(found, ", "))
	}
	t := Tree{WorkTree: path, GitDir: found[0], CommonDir: common}
	if err := checkCommonDir(t); err != nil {
		return Tree{}, err
	}
	if err := checkWorktreeConfig(ctx, t); err != nil {
		return Tree{}, err
	}
	return t, nil
}

// checkCommonDir refuses a worktree git folder whose commondir file leads
// to another repository. RunTree's GIT_COMMON_DIR overrides the file, but
// a git that git starts for a worktree by itself (worktree remove's check
// that it is clean) reads it.
func checkCommonDir(t Tree) error {
	b, err := os.ReadFile(filepath.Join(t.GitDir, "commondir"))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUntrustedTree, err)
	}
	named := strings.TrimSpace(string(b))
	if !filepath.IsAbs(named) {
		named = filepath.Join(t.GitDir, named)
	}
	if SameFolder(named, t.CommonDir) {
		return nil
	}
	return fmt.Errorf("%w: %s names %s, not %s", ErrUntrustedTree, filepath.Join(t.GitDir, "commondir"), named, t.CommonDir)
}

// checkWorktreeConfig refuses a config.worktree in the worktree's git
// folder when the repository has git read it. Command-line configuration
// still wins over it (safeConfig), but it could define what a filter the
// worktree's .gitattributes names runs, or sign with a program of its own.
func checkWorktreeConfig(ctx context.Context, t Tree) error {
	file := filepath.Join(t.GitDir, "config.worktree")
	if _, err := os.Lstat(file); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	out, err := Run(ctx, t.CommonDir, "config", "--file", filepath.Join(t.CommonDir, "config"), "--type=bool", "--get", "extensions.worktreeConfig")
	if code, ok := ExitCode(err); ok && code == 1 {
		return nil // not set: git ignores the file
	} else if err != nil {
		return fmt.Errorf("read extensions.worktreeConfig: %w", err)
	}
	if strings.TrimSpace(string(out)) != "true" {
		return nil
	}
	return fmt.Errorf("%w: %s would be read (extensions.worktreeConfig is set), and whoever works in the worktree can write it", ErrUntrustedTree, file)
}

// SameFolder reports whether a and b are one folder, links resolved.
func SameFolder(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
