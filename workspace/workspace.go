// Package workspace gives each supervised agent a git worktree of its own:
// a folder under Switchboard's data directory, on a new branch from the
// repository's base, that the agent may change freely while the person
// keeps working in their own checkout. It creates worktrees, reads their
// state, commits what an agent left, measures the change, and removes a
// worktree only when nothing in it would be lost.
//
// Every git call goes through gitcmd, which refuses the commands that can
// drop work and runs no hook and no fsmonitor; this package adds the checks
// git itself cannot make (has this branch landed on the base?) before the
// few commands that delete anything (worktree remove, branch -d). In a
// worktree, which its agent can write, git is told the worktree's git
// folders as the repository records them (Workspace.Tree), never left to
// read them from the worktree's .git file. It needs git 2.36 or newer
// (worktree list -z).
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// BranchPrefix starts the name of every branch Switchboard creates.
const BranchPrefix = "switchboard/"

const (
	maxSlug    = 32
	shortIDLen = 8
	maxIDLen   = 128
)

// ErrDetachedHead is returned when a branch was needed and HEAD names a
// commit instead.
var ErrDetachedHead = errors.New("HEAD is detached")

// ErrNoCommit is returned by Create for a repository with no commit yet: a
// worktree starts from a commit, so there is nothing to branch from.
var ErrNoCommit = errors.New("the repository has no commit yet")

// ErrPathInUse is returned by Create when the worktree's folder exists and
// holds something.
var ErrPathInUse = errors.New("worktree folder exists and is not empty")

// Workspace is one agent's worktree.
type Workspace struct {
	// Path is the worktree's folder, with symbolic links in Root resolved
	// (the path git records for it).
	Path string `json:"path"`
	// Branch is the branch created for it, e.g. "switchboard/3f2a9c1e/fix-login".
	Branch string `json:"branch"`
	// BaseBranch is the branch it started from and lands on.
	BaseBranch string `json:"base_branch"`
	// BaseCommit is BaseBranch's commit when the worktree was made: the
	// start of the range the agent's work is measured from.
	BaseCommit string `json:"base_commit"`
	// RepoPath is the repository's folder (Spec.RepoPath), a folder the
	// person owns: the worktree's git folders are found from the records
	// in its .git (see Tree). Needed by what runs git in the worktree
	// itself (Status, CommitAll, ChangedFiles, Untracked, WorkTreeDiff,
	// Remove), not by Land.
	RepoPath string `json:"repo_path,omitempty"`
}

// Tree returns the worktree with its git folders as the repository at
// RepoPath records them, for gitcmd.RunTree: the agent can replace the
// worktree's .git file ("gitdir: <a folder of its own>", with a config of
// its own), and git finding its folders through it would run what that
// config names.
func (ws Workspace) Tree(ctx context.Context) (gitcmd.Tree, error) {
	if ws.RepoPath == "" || !filepath.IsAbs(ws.RepoPath) {
		return gitcmd.Tree{}, fmt.Errorf("worktree %s: the repository's folder %q is needed, absolute", ws.Path, ws.RepoPath)
	}
	common, err := gitcmd.CommonDir(ctx, ws.RepoPath)
	if err != nil {
		return gitcmd.Tree{}, err
	}
	return gitcmd.LinkedTree(ctx, common, ws.Path)
}

// Spec says where to make a workspace and for whom.
type Spec struct {
	// RepoPath is the repository's folder (absolute).
	RepoPath string
	// Root is "<data dir>/worktrees" (absolute).
	Root string
	// RepositoryID and SessionID name the folders under Root; SessionID
	// ("ses_…") also names the branch.
	RepositoryID, SessionID string
	// Slug is free text (a packet's title, the profile) made into the
	// branch name's tail.
	Slug string
	// Base is the branch to start from; "" means the branch checked out in
	// RepoPath.
	Base string
}

// IsRepository reports whether path is a git work tree's top level or a
// folder inside one. A folder outside any repository is false, not an
// error; a missing path is an error.
func IsRepository(ctx context.Context, path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, fmt.Errorf("check %s for a git repository: %w", path, err)
	}
	if !info.IsDir() {
		return false, fmt.Errorf("check %s for a git repository: not a folder", path)
	}
	// git says "not a git repository" with the same exit status as for a
	// repository it cannot read (wrong owner, corrupt), and messages are no
	// interface. So look for the .git entry git's own discovery starts
	// from: without one on the way up there is no repository, and with one
	// every failure of git is a real error.
	if !hasGitEntryAbove(path) {
		return false, nil
	}
	out, err := gitcmd.Run(ctx, path, "rev-parse", "--is-inside-work-tree")
	if err != nil {
		return false, fmt.Errorf("check %s for a git repository: %w", path, err)
	}
	// "false" inside a .git folder or a bare repository: no work tree.
	return strings.TrimSpace(string(out)) == "true", nil
}

// hasGitEntryAbove reports whether path or a folder above it holds ".git".
func hasGitEntryAbove(path string) bool {
	dir, err := filepath.Abs(path)
	if err != nil {
		return true // let git decide
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// CurrentBranch returns the short name of the branch checked out in
// repoPath. A detached HEAD is an error wrapping ErrDetachedHead that names
// its commit.
func CurrentBranch(ctx context.Context, repoPath string) (string, error) {
	out, err := gitcmd.Run(ctx, repoPath, "symbolic-ref", "--quiet", "--short", "HEAD")
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		// --quiet: status 1 and no message means HEAD is not a branch.
		head, herr := gitcmd.Run(ctx, repoPath, "rev-parse", "--short", "HEAD")
		if herr != nil {
			return "", fmt.Errorf("current branch of %s: %w", repoPath, ErrDetachedHead)
		}
		return "", fmt.Errorf("current branch of %s: %w at %s", repoPath, ErrDetachedHead, strings.TrimSpace(string(head)))
	}
	if err != nil {
		return "", fmt.Errorf("current branch of %s: %w", repoPath, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Create makes the worktree for spec: folder Root/RepositoryID/SessionID
// (each folder it makes 0700), branch BranchName(SessionID, Slug) from the
// base branch's current commit. It touches nothing in the person's own
// checkout: git adds the worktree's files in the new folder and its
// bookkeeping under .git. It refuses a folder that exists and is not
// empty, and a branch name already taken.
func Create(ctx context.Context, spec Spec) (Workspace, error) {
	fail := func(err error) (Workspace, error) {
		return Workspace{}, fmt.Errorf("create worktree for %s: %w", spec.SessionID, err)
	}
	if !filepath.IsAbs(spec.RepoPath) || !filepath.IsAbs(spec.Root) {
		return fail(fmt.Errorf("repository folder %q and root %q must be absolute", spec.RepoPath, spec.Root))
	}
	if err := checkID("repository id", spec.RepositoryID); err != nil {
		return fail(err)
	}
	branch, err := BranchName(spec.SessionID, spec.Slug)
	if err != nil {
		return fail(err)
	}
	if ok, err := IsRepository(ctx, spec.RepoPath); err != nil {
		return fail(err)
	} else if !ok {
		return fail(fmt.Errorf("%s is not in a git work tree", spec.RepoPath))
	}
	if err := checkBranchName(ctx, spec.RepoPath, branch); err != nil {
		return fail(err)
	}
	base := spec.Base
	if base == "" {
		if base, err = CurrentBranch(ctx, spec.RepoPath); err != nil {
			return fail(fmt.Errorf("no base branch set, and %w", err))
		}
	}
	if err := checkBranchName(ctx, spec.RepoPath, base); err != nil {
		return fail(fmt.Errorf("base %w", err))
	}
	// Start from the commit, not the name: the person may commit on the
	// base while we work, and BaseCommit must be what the worktree has.
	baseCommit, err := resolveCommit(ctx, spec.RepoPath, "refs/heads/"+base)
	if err != nil {
		if _, headErr := resolveCommit(ctx, spec.RepoPath, "HEAD"); headErr != nil {
			return fail(fmt.Errorf("%w: %s", ErrNoCommit, spec.RepoPath))
		}
		return fail(fmt.Errorf("base branch %s: %w", base, err))
	}

	repoDir := filepath.Join(spec.Root, spec.RepositoryID)
	if err := os.MkdirAll(repoDir, 0o700); err != nil {
		return fail(err)
	}
	// git records the worktree's real path; so do we, or List and Remove
	// would not recognise it under a root reached through a symbolic link.
	if repoDir, err = filepath.EvalSymlinks(repoDir); err != nil {
		return fail(err)
	}
	path := filepath.Join(repoDir, spec.SessionID)
	made, err := emptyFolder(path)
	if err != nil {
		return fail(err)
	}
	// git accepts an empty folder; making it ourselves gives it 0700
	// whatever the umask.
	if err := addWorktree(ctx, spec.RepoPath, branch, path, baseCommit); err != nil {
		if made {
			os.Remove(path) // only if still empty: never take anything with it
		}
		return fail(err)
	}
	return Workspace{Path: path, Branch: branch, BaseBranch: base, BaseCommit: baseCommit, RepoPath: spec.RepoPath}, nil
}

// addTries is how many times addWorktree runs git worktree add.
const addTries = 4

// addWorktree runs git worktree add on a new branch, again when an attempt
// failed having written nothing in the folder. git takes no lock while it
// adds a worktree: a second add (two agents started at once, or the
// person's own) can read the first one's half-written entry under
// .git/worktrees and give up ("failed to read …/commondir") after it made
// the branch and before it wrote a file. The later attempts take that
// branch when it is still at the commit, and only when it was not there
// before the first.
func addWorktree(ctx context.Context, repoPath, branch, path, commit string) error {
	ref := "refs/heads/" + branch
	if _, err := resolveCommit(ctx, repoPath, ref); err == nil {
		return fmt.Errorf("branch %s exists already", branch)
	}
	args := []string{"worktree", "add", "--quiet", "-b", branch, path, commit}
	var err error
	for try := range addTries {
		if _, err = gitcmd.Run(ctx, repoPath, args...); err == nil {
			return nil
		}
		if try == addTries-1 || !isEmptyDir(path) {
			break
		}
		if at, rerr := resolveCommit(ctx, repoPath, ref); rerr == nil {
			if at != commit {
				break
			}
			args = []string{"worktree", "add", "--quiet", path, branch}
		}
		t := time.NewTimer(time.Duration(25<<try) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
	return err
}

// isEmptyDir reports whether path is a folder with nothing in it.
func isEmptyDir(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}

// emptyFolder makes path (0700), or accepts it when it is an empty folder.
// made says whether it made it.
func emptyFolder(path string) (made bool, err error) {
	if err := os.Mkdir(path, 0o700); err == nil {
		return true, nil
	} else if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	// A symbolic link (even to an empty folder) would put the worktree
	// somewhere else than the path we record.
	if info, err := os.Lstat(path); err != nil {
		return false, err
	} else if !info.IsDir() {
		return false, fmt.Errorf("%s: %w (%v)", path, ErrPathInUse, info.Mode().Type())
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("%s: %w", path, ErrPathInUse)
	}
	return false, nil
}

// BranchName returns "switchboard/<short id>/<slug>": the first 8
// characters of sessionID after "ses_", and Slug(text). The short id is a
// folder of its own so that a confined agent can be given write access to
// its branch's ref and no other's (git writes a ref's lock file beside it).
func BranchName(sessionID, text string) (string, error) {
	if err := checkID("session id", sessionID); err != nil {
		return "", err
	}
	short, ok := strings.CutPrefix(sessionID, "ses_")
	if !ok || short == "" {
		return "", fmt.Errorf("session id %q does not start with \"ses_\"", sessionID)
	}
	if len(short) > shortIDLen {
		short = short[:shortIDLen]
	}
	return BranchPrefix + short + "/" + Slug(text), nil
}

// Slug makes text into a branch name's tail: lowercase ASCII letters and
// digits, every other run of characters one dash, at most 32 characters,
// no dash at either end; "agent" when nothing is left.
func Slug(text string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(text) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= maxSlug {
				break
			}
			continue
		}
		dash = true
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	if s == "" {
		return "agent"
	}
	return s
}

// checkID accepts ids that are safe as one folder name and in a branch
// name: letters, digits, "_" and "-", not starting with "-".
func checkID(what, id string) error {
	if id == "" || len(id) > maxIDLen || id[0] == '-' {
		return fmt.Errorf("%s %q: want 1 to %d letters, digits, _ or -", what, id, maxIDLen)
	}
	for _, r := range id {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("%s %q: want 1 to %d letters, digits, _ or -", what, id, maxIDLen)
		}
	}
	return nil
}

// checkBranchName asks git whether name is a valid branch name, and
// refuses the forms --branch would expand ("@{-1}", "-") rather than
// accept a name other than the one given.
func checkBranchName(ctx context.Context, repo, name string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return fmt.Errorf("branch name %q is not valid", name)
	}
	out, err := gitcmd.Run(ctx, repo, "check-ref-format", "--branch", name)
	if err != nil {
		return fmt.Errorf("branch name %q is not valid: %w", name, err)
	}
	if got := strings.TrimSpace(string(out)); got != name {
		return fmt.Errorf("branch name %q stands for %q; name the branch itself", name, got)
	}
	return nil
}

// resolveCommit returns the commit ref names, or an error when it names
// none.
func resolveCommit(ctx context.Context, dir, ref string) (string, error) {
	out, err := gitcmd.Run(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return "", fmt.Errorf("%s names no commit", ref)
	}
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}
