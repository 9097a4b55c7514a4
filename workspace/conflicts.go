package workspace

// Whether a packet's commits still apply to its target branch, asked before
// anyone clicks Land: the same three-way merge a landing makes, in the
// object store only, and the conflicting hunks for a person to read.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// MergeCheck names one packet's merge onto its target.
type MergeCheck struct {
	// Target is the target branch's commit, a full id (BranchTips).
	Target string
	// Head is the packet's last commit.
	Head string
	// From is where the packet's range starts, its first commit's parent:
	// only From..Head is merged, as a landing of the packet brings only
	// its own commits. "" merges everything Head has that Target lacks.
	From string
}

// Conflicts is the outcome of a MergeCheck.
type Conflicts struct {
	// Target is the target's commit the merge was made onto.
	Target string `json:"target_commit"`
	// Head is the packet's commit that was merged.
	Head string `json:"head"`
	// Files are the paths that conflict, as git names them; none when the
	// packet applies cleanly.
	Files []string `json:"files,omitempty"`
}

// Clean reports whether the packet applies without a conflict.
func (c Conflicts) Clean() bool { return len(c.Files) == 0 }

// Checker checks packets of one repository. It remembers, between its
// checks, which range starts are already on which target commits and the
// targets' trees, so that packets started from the same commit cost one
// git call each: the merge. It is not safe for concurrent use.
type Checker struct {
	repo string
	// onTarget[{from, target}] is whether from is an ancestor of target.
	onTarget map[[2]string]bool
	// trees maps a commit to its tree.
	trees map[string]string
}

// NewChecker returns a Checker for the repository at repoPath.
func NewChecker(repoPath string) *Checker {
	return &Checker{repo: repoPath, onTarget: map[[2]string]bool{}, trees: map[string]string{}}
}

// Forget drops what the checker remembers, to bound it: the caller calls it
// once its targets moved on.
func (c *Checker) Forget() {
	clear(c.onTarget)
	clear(c.trees)
}

// Check merges m.From..m.Head onto m.Target with `git merge-tree
// --write-tree --name-only` and returns the conflicting paths. Nothing is
// written outside .git/objects: no ref, no index, no file.
func (c *Checker) Check(ctx context.Context, m MergeCheck) (Conflicts, error) {
	r, err := c.merge(ctx, m)
	if err != nil {
		return Conflicts{}, fmt.Errorf("check %s onto %s: %w", m.Head, m.Target, err)
	}
	return Conflicts{Target: m.Target, Head: m.Head, Files: r.files}, nil
}

// mergeResult is what merge-tree said: the result tree (with conflict
// markers in its files when it conflicts), the conflicting paths and git's
// conflict messages.
type mergeResult struct {
	tree     string
	files    []string
	messages []ConflictMessage
	// ours is the commit merged as ours: m.Target, or the stand-in for
	// it (standIn). Markers and messages name it.
	ours string
}

// merge runs the merge of m.
func (c *Checker) merge(ctx context.Context, m MergeCheck) (mergeResult, error) {
	for _, id := range []string{m.Target, m.Head, m.From} {
		if id != "" && !isCommitID(id) {
			return mergeResult{}, fmt.Errorf("%q is not a full commit id", id)
		}
	}
	if m.Target == "" || m.Head == "" {
		return mergeResult{}, fmt.Errorf("a merge check needs a target and a head")
	}
	ours := m.Target
	if m.From != "" {
		on, err := c.fromOnTarget(ctx, m.From, m.Target)
		if err != nil {
			return mergeResult{}, err
		}
		if !on {
			// The range sits on commits the target lacks (another
			// packet's, not landed): merge only its own changes.
			if ours, err = c.standIn(ctx, m.Target, m.From); err != nil {
				return mergeResult{}, err
			}
		}
	}
	out, err := gitcmd.Run(ctx, c.repo, "merge-tree", "--write-tree", "--name-only", "-z", ours, m.Head)
	code, exited := gitcmd.ExitCode(err)
	if err != nil && (!exited || code != 1) {
		return mergeResult{}, fmt.Errorf("merge-tree: %w", err)
	}
	r, perr := parseMergeTreeMessages(out)
	if perr != nil {
		return mergeResult{}, perr
	}
	if err == nil {
		r.files = nil // status 0: clean, whatever git had to say
	} else if len(r.files) == 0 {
		return mergeResult{}, fmt.Errorf("merge-tree: a conflict without a conflicting path")
	}
	r.ours = ours
	return r, nil
}

// fromOnTarget reports whether from is an ancestor of target.
func (c *Checker) fromOnTarget(ctx context.Context, from, target string) (bool, error) {
	k := [2]string{from, target}
	if on, ok := c.onTarget[k]; ok {
		return on, nil
	}
	on, err := isAncestor(ctx, c.repo, from, target)
	if err != nil {
		return false, err
	}
	c.onTarget[k] = on
	return on, nil
}

// standInIdent is the author and committer of a stand-in commit. Its
// fixed date makes the commit depend on its tree and parent alone, so that
// checking again writes no new object.
const standInIdent = "Switchboard <switchboard@localhost> 0 +0000"

// standIn writes a commit of target's tree whose only parent is from:
// merged with a head that descends from from, its merge base is from, so
// the merge applies from..head onto target's files and nothing below
// from. git 2.39's merge-tree takes no merge base; land's squash does the
// same with commit-tree, which needs the person's identity this check
// must not depend on.
func (c *Checker) standIn(ctx context.Context, target, from string) (string, error) {
	tree, ok := c.trees[target]
	if !ok {
		var err error
		if tree, err = resolveTree(ctx, c.repo, target); err != nil {
			return "", err
		}
		c.trees[target] = tree
	}
	text := fmt.Sprintf("tree %s\nparent %s\nauthor %s\ncommitter %s\n\nconflict check\n", tree, from, standInIdent, standInIdent)
	out, err := gitcmd.RunInput(ctx, c.repo, []byte(text), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("write the conflict check's commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ConflictMessage is one of git's messages about the merge: what kind of
// conflict (or note) it is, on which paths.
type ConflictMessage struct {
	Paths []string `json:"paths"`
	// Kind is git's short name: "CONFLICT (content)", "CONFLICT
	// (modify/delete)", "Auto-merging".
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// parseMergeTreeMessages reads `git merge-tree --write-tree --name-only
// -z` with its messages: the tree, NUL; each conflicting path, NUL (a path
// conflicting in several ways named once); an empty field; then per
// message its path count, the paths, its kind and its text, each NUL
// terminated. A clean merge's output may end after the tree.
func parseMergeTreeMessages(out []byte) (mergeResult, error) {
	fields := bytes.Split(out, []byte{0})
	if len(fields) == 0 || !isCommitID(string(fields[0])) {
		return mergeResult{}, fmt.Errorf("merge-tree printed no tree")
	}
	r := mergeResult{tree: string(fields[0])}
	i := 1
	seen := map[string]bool{}
	for ; i < len(fields) && len(fields[i]) > 0; i++ {
		if f := string(fields[i]); !seen[f] {
			seen[f] = true
			r.files = append(r.files, f)
		}
	}
	i++ // the empty field
	for i < len(fields) && len(fields[i]) > 0 {
		n, err := strconv.Atoi(string(fields[i]))
		if err != nil || n < 0 || i+1+n+2 > len(fields) {
			return mergeResult{}, fmt.Errorf("merge-tree: unexpected message header %q", fields[i])
		}
		msg := ConflictMessage{Kind: string(fields[i+1+n]), Text: strings.TrimSpace(string(fields[i+2+n]))}
		for _, p := range fields[i+1 : i+1+n] {
			msg.Paths = append(msg.Paths, string(p))
		}
		r.messages = append(r.messages, msg)
		i += n + 3
	}
	return r, nil
}

// isCommitID is true for a full SHA-1 or SHA-256 object id in lower case.
func isCommitID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// BranchTips returns the commits branches point at in the repository at
// repoPath, in one git call; a branch that does not exist is left out.
func BranchTips(ctx context.Context, repoPath string, branches []string) (map[string]string, error) {
	if len(branches) == 0 {
		return map[string]string{}, nil
	}
	args := []string{"for-each-ref", "--format=%(objectname) %(refname)"}
	want := make(map[string]string, len(branches))
	for _, b := range branches {
		if b == "" || strings.HasPrefix(b, "-") {
			return nil, fmt.Errorf("branch name %q", b)
		}
		want["refs/heads/"+b] = b
		args = append(args, "refs/heads/"+b)
	}
	out, err := gitcmd.Run(ctx, repoPath, args...)
	if err != nil {
		return nil, fmt.Errorf("read branch tips: %w", err)
	}
	tips := make(map[string]string, len(branches))
	for _, l := range strings.Split(string(out), "\n") {
		id, ref, ok := strings.Cut(l, " ")
		// A pattern also matches the refs below it (main/x for main):
		// only exact names count.
		if b, wanted := want[ref]; ok && wanted {
			tips[b] = id
		}
	}
	return tips, nil
}

// RefsStamp is what the files that hold some branches' tips looked like:
// each branch's loose ref, packed-refs and a reftable's table list. git
// writes a ref by renaming a new file into place, so a moved branch shows
// as a different file there; comparing stamps tells, without running git,
// whether BranchTips could answer differently. A file system that reuses
// a file's identity and keeps coarse times could hide a move: the caller
// reads the tips now and then regardless.
type RefsStamp struct {
	files []os.FileInfo // nil where a file is missing
}

// ReadRefsStamp stamps the ref files of branches in commonDir, the
// repository's git folder (CommonDir).
func ReadRefsStamp(commonDir string, branches []string) RefsStamp {
	paths := []string{filepath.Join(commonDir, "packed-refs"), filepath.Join(commonDir, "reftable", "tables.list")}
	for _, b := range branches {
		paths = append(paths, filepath.Join(commonDir, "refs", "heads", filepath.FromSlash(b)))
	}
	s := RefsStamp{files: make([]os.FileInfo, len(paths))}
	for i, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			s.files[i] = fi
		}
	}
	return s
}

// Same reports whether s and o stamp the same files, unchanged.
func (s RefsStamp) Same(o RefsStamp) bool {
	if len(s.files) != len(o.files) || len(s.files) == 0 {
		return false
	}
	for i, a := range s.files {
		b := o.files[i]
		switch {
		case a == nil && b == nil:
		case a == nil || b == nil:
			return false
		case !os.SameFile(a, b) || !a.ModTime().Equal(b.ModTime()) || a.Size() != b.Size():
			return false
		}
	}
	return true
}
