package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrNotOnBranch is returned by CommitAll when the worktree has another
// branch, or no branch, checked out: the commit would not be on the
// workspace's branch, where the packet's range is measured.
var ErrNotOnBranch = errors.New("worktree is not on its branch")

// ErrUnmerged is returned by CommitAll when files are in conflict: adding
// them would commit the conflict markers as if resolved.
var ErrUnmerged = errors.New("worktree has unmerged files")

// Commit is what CommitAll records.
type Commit struct {
	// Message is the commit message; a packet's title.
	Message string
	// Trailers are whole "Key: value" lines put after a blank line, e.g.
	// "Switchboard-Packet: pkt_…".
	Trailers []string
	// AuthorName and AuthorEmail are the person's identity; both or
	// neither. Empty means git's configured identity.
	AuthorName, AuthorEmail string
	// CoAuthors are "Name <email>" entries, each written as a
	// "Co-authored-by:" trailer (the agent).
	CoAuthors []string
	// Check, when set, is shown the paths (from the top of the
	// repository, a rename as its two) that differ between the commit
	// Since and the tree about to be committed: HEAD's, when nothing is
	// uncommitted. An error from it stops CommitAll with nothing
	// committed, and is returned as it is. The commit made is of exactly
	// the tree Check saw: a file written, or staged by another git, after
	// it looked stays uncommitted.
	Check func(paths []string) error
	// Since is where Check's paths are measured from ("" is the
	// workspace's BaseCommit).
	Since string
}

// CommitAll commits everything uncommitted in ws (git add -A, so new,
// changed and deleted files, ignored files aside) on ws's branch. When
// nothing is uncommitted it makes no commit and created is false. head is
// the commit checked out afterwards either way. Given an author, git also
// commits as that person (-c user.name, user.email), so that a machine
// without a configured identity can still commit for them. With a Check,
// what is committed is checked first, as one tree (Commit.Check).
//
// No hook runs, and a caller says so where it shows the commit: the
// commit is made inside the app, as the person, and the hooks are files the
// agent could have written (a tracked husky or lefthook folder that
// core.hooksPath names, or .git/hooks when it ran unconfined). Hooks meant
// to check the agent's work are the agent's to run, in its own
// confinement, by committing itself before it completes.
func CommitAll(ctx context.Context, ws Workspace, c Commit) (created bool, head string, err error) {
	created, head, err = commitAll(ctx, ws, c)
	if err != nil {
		return false, "", fmt.Errorf("commit in worktree %s: %w", ws.Path, err)
	}
	return created, head, nil
}

func commitAll(ctx context.Context, ws Workspace, c Commit) (bool, string, error) {
	msg, err := c.message()
	if err != nil {
		return false, "", err
	}
	if err := ws.check(); err != nil {
		return false, "", err
	}
	t, err := ws.Tree(ctx)
	if err != nil {
		return false, "", err
	}
	st, err := status(ctx, t, ws)
	if err != nil {
		return false, "", err
	}
	if st.Branch != ws.Branch {
		on := st.Branch
		if on == "" {
			on = "a detached HEAD at " + st.Head
		}
		return false, "", fmt.Errorf("%w: %s is checked out, not %s", ErrNotOnBranch, on, ws.Branch)
	}
	var unmerged []string
	for _, ch := range st.Changed {
		if ch.Status == "U" {
			unmerged = append(unmerged, ch.Path)
		}
	}
	if len(unmerged) > 0 {
		return false, "", fmt.Errorf("%w: %s", ErrUnmerged, strings.Join(unmerged, ", "))
	}
	if !st.Dirty {
		return false, st.Head, c.check(ctx, t, ws, st.Head)
	}
	if _, err := gitcmd.RunTree(ctx, t, "add", "--all"); err != nil {
		return false, "", err
	}
	// The index, as a tree, is what is committed: the check looks at it,
	// and the commit is made of it with commit-tree rather than by git
	// commit, which would read the index again after the check.
	out, err := gitcmd.RunTree(ctx, t, "write-tree")
	if err != nil {
		return false, "", fmt.Errorf("write the index as a tree: %w", err)
	}
	tree := strings.TrimSpace(string(out))
	if err := c.check(ctx, t, ws, tree); err != nil {
		return false, "", err
	}
	// Something can be uncommitted and yet stage nothing (a submodule's
	// own untracked files): no commit then.
	if headTree, err := resolveTreeIn(ctx, t, st.Head); err != nil {
		return false, "", err
	} else if headTree == tree {
		return false, st.Head, nil
	}
	var args []string
	if c.AuthorName != "" {
		// commit-tree takes author and committer from the configured
		// identity (gitcmd passes no GIT_AUTHOR_* on).
		args = append(args, "-c", "user.name="+c.AuthorName, "-c", "user.email="+c.AuthorEmail)
	}
	// No hook runs: commit-tree runs none.
	args = append(args, "commit-tree", "-p", st.Head, "-F", "-", tree)
	out, err = gitcmd.RunTreeInput(ctx, t, []byte(msg), args...)
	if err != nil {
		return false, "", fmt.Errorf("commit: %w", err)
	}
	head := strings.TrimSpace(string(out))
	// The branch moves only from the head the status read: a commit the
	// agent made meanwhile is not overwritten.
	subject, _, _ := strings.Cut(msg, "\n")
	if _, err := gitcmd.RunTree(ctx, t, "update-ref", "-m", "commit: "+subject, "refs/heads/"+ws.Branch, head, st.Head); err != nil {
		return false, "", fmt.Errorf("move %s to the commit: %w", ws.Branch, err)
	}
	return true, head, nil
}

// check calls c.Check, if set, with the paths that differ between c.Since
// and treeish, in the work tree t of ws.
func (c Commit) check(ctx context.Context, t gitcmd.Tree, ws Workspace, treeish string) error {
	if c.Check == nil {
		return nil
	}
	since := c.Since
	if since == "" {
		since = ws.BaseCommit
	}
	if strings.HasPrefix(since, "-") {
		return fmt.Errorf("since %q is not a commit", since)
	}
	out, err := gitcmd.RunTree(ctx, t, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
		"--ignore-submodules=none", since, treeish, "--")
	if err != nil {
		return fmt.Errorf("paths changed since %s: %w", since, err)
	}
	return c.Check(splitZ(out))
}

// resolveTreeIn is resolveTree in the work tree t.
func resolveTreeIn(ctx context.Context, t gitcmd.Tree, commit string) (string, error) {
	out, err := gitcmd.RunTree(ctx, t, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("tree of %s: %w", commit, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// message returns the full commit message, or why c cannot make one.
func (c Commit) message() (string, error) {
	msg := stripSpace(c.Message)
	if msg == "" {
		return "", errors.New("commit message is empty")
	}
	if (c.AuthorName == "") != (c.AuthorEmail == "") {
		return "", errors.New("author needs both a name and an email")
	}
	for _, s := range []string{c.AuthorName, c.AuthorEmail} {
		if strings.ContainsAny(s, "<>\n") {
			return "", fmt.Errorf("author %q: no <, > or line breaks", s)
		}
	}
	trailers := append([]string(nil), c.Trailers...)
	for _, a := range c.CoAuthors {
		if !strings.HasSuffix(a, ">") || !strings.Contains(a, " <") {
			return "", fmt.Errorf("co-author %q: want \"Name <email>\"", a)
		}
		trailers = append(trailers, "Co-authored-by: "+a)
	}
	for _, t := range trailers {
		key, value, ok := strings.Cut(t, ": ")
		if !ok || strings.TrimSpace(value) == "" || strings.ContainsAny(t, "\r\n") || !isTrailerKey(key) {
			return "", fmt.Errorf("trailer %q: want one line \"Key: value\"", t)
		}
	}
	if len(trailers) > 0 {
		msg += "\n\n" + strings.Join(trailers, "\n")
	}
	return msg + "\n", nil
}

// stripSpace cleans a message as git commit does one it is given
// (--cleanup=whitespace), since commit-tree does not: no trailing space on
// a line, no blank lines at either end or two in a row.
func stripSpace(msg string) string {
	var lines []string
	blank := false
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank = true
			continue
		}
		if blank && len(lines) > 0 {
			lines = append(lines, "")
		}
		blank = false
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func isTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// ChangedFiles lists every path that differs between ws's BaseCommit and
// its work tree: committed or not, staged or not, and untracked files
// (ignored ones aside), each once, sorted. A rename counts as both of its
// paths, since both must be in a packet's write scope.
func ChangedFiles(ctx context.Context, ws Workspace) ([]string, error) {
	if err := ws.check(); err != nil {
		return nil, err
	}
	t, err := ws.Tree(ctx)
	if err != nil {
		return nil, fmt.Errorf("changed files in %s: %w", ws.Path, err)
	}
	tracked, err := gitcmd.RunTree(ctx, t, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff",
		"--ignore-submodules=none", ws.BaseCommit, "--")
	if err != nil {
		return nil, fmt.Errorf("changed files in %s: %w", ws.Path, err)
	}
	untracked, err := gitcmd.RunTree(ctx, t, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("untracked files in %s: %w", ws.Path, err)
	}
	seen := map[string]bool{}
	var paths []string
	for _, p := range append(splitZ(tracked), splitZ(untracked)...) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// Stat is a diffstat.
type Stat struct {
	Files []FileStat `json:"files"`
	// Added and Deleted are line totals over the text files.
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}

// FileStat is one file's line counts; a binary file has -1 for both.
type FileStat struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
}

// Diffstat measures the change from one commit to another in the
// repository at repoPath (the person's folder, not a worktree: commits are
// the same in all of them), renames found.
func Diffstat(ctx context.Context, repoPath, from, to string) (Stat, error) {
	if from == "" || to == "" || strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
		return Stat{}, fmt.Errorf("diffstat %q..%q: want two commits", from, to)
	}
	out, err := gitcmd.Run(ctx, repoPath, "diff", "--numstat", "-z", "--find-renames", "--no-ext-diff", "--no-textconv",
		"--ignore-submodules=none", from, to, "--")
	if err != nil {
		return Stat{}, fmt.Errorf("diffstat %s..%s: %w", from, to, err)
	}
	st, err := parseNumstat(out)
	if err != nil {
		return Stat{}, fmt.Errorf("diffstat %s..%s: %w", from, to, err)
	}
	return st, nil
}

// parseNumstat reads `git diff --numstat -z`: "added\tdeleted\tpath\0",
// or for a rename "added\tdeleted\t\0old\0new\0"; "-" counts for binary.
func parseNumstat(out []byte) (Stat, error) {
	st := Stat{Files: []FileStat{}}
	recs := splitZ(out)
	for i := 0; i < len(recs); i++ {
		f := strings.SplitN(recs[i], "\t", 3)
		if len(f) != 3 {
			return Stat{}, fmt.Errorf("numstat record %q: want 3 fields", recs[i])
		}
		var fs FileStat
		var err error
		if fs.Added, err = count(f[0]); err != nil {
			return Stat{}, err
		}
		if fs.Deleted, err = count(f[1]); err != nil {
			return Stat{}, err
		}
		fs.Path = f[2]
		if fs.Path == "" {
			if i+2 >= len(recs) {
				return Stat{}, fmt.Errorf("numstat rename record %q: paths missing", recs[i])
			}
			fs.OldPath, fs.Path = recs[i+1], recs[i+2]
			i += 2
		}
		if fs.Added >= 0 {
			st.Added += fs.Added
			st.Deleted += fs.Deleted
		}
		st.Files = append(st.Files, fs)
	}
	return st, nil
}

func count(s string) (int, error) {
	if s == "-" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("numstat count %q", s)
	}
	return n, nil
}

// splitZ splits NUL-terminated records, dropping the empty tail.
func splitZ(out []byte) []string {
	var recs []string
	for _, r := range bytes.Split(out, []byte{0}) {
		if len(r) > 0 {
			recs = append(recs, string(r))
		}
	}
	return recs
}
