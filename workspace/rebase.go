package workspace

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// Rebase replays the commits of the range From..branch tip, oldest first,
// each on the one before, starting from the base's tip, and fast-forwards
// the base to the last: the base's history stays a line, with the agent's
// commits in it one by one, each with its author (name, email and date)
// and message, the person who lands as committer. As git rebase does, a
// commit whose parent is already the base's tip is kept as it is, so a
// branch that starts at the base's tip lands as a plain fast-forward (and
// then Status reports it Landed); a commit whose changes the base already
// has is left out. Otherwise the commits are new objects, and, as after a
// squash, Status keeps counting the branch's own as unlanded.
//
// A merge commit on the branch (the agent merged the base in) is replayed
// as its changes from its first parent; its other parents are dropped, as
// git rebase drops merges.
const Rebase Mode = "rebase"

// replay writes the rebased commits for Land: the range from..tip (from
// "" is ws.BaseCommit) along first parents, replayed onto old, the base's
// tip. It returns the last commit, old itself when every commit's changes
// were on the base already, or a *ConflictError for the first commit that
// does not apply. It writes objects only: no ref moves, no file changes.
//
// git 2.39's merge-tree cannot be given a merge base, and the one a
// replayed commit needs is its parent: a stand-in commit of the tree so
// far on that parent makes it the merge base git finds. That is three git
// calls a commit, so the inputs are read once up front: the range with
// its trees, and every commit's text in one cat-file --batch.
func replay(ctx context.Context, repoPath string, ws Workspace, from, old, tip string) (string, error) {
	if from == "" {
		from = ws.BaseCommit
	}
	from, err := resolveCommit(ctx, repoPath, from)
	if err != nil {
		return "", err
	}
	if ok, err := isAncestor(ctx, repoPath, from, tip); err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("rebase from %s: not an ancestor of %s", from, ws.Branch)
	}
	if landed, err := isAncestor(ctx, repoPath, tip, old); err != nil {
		return "", err
	} else if landed {
		return "", fmt.Errorf("%w: %s already has every commit of %s", ErrNothingToLand, ws.BaseBranch, ws.Branch)
	}
	commits, err := rangeCommits(ctx, repoPath, from, tip)
	if err != nil {
		return "", err
	}
	if len(commits) == 0 {
		return "", fmt.Errorf("%w: %s..%s has no commits", ErrNothingToLand, from, ws.Branch)
	}
	texts, err := commitTexts(ctx, repoPath, commits)
	if err != nil {
		return "", err
	}
	committer, err := gitcmd.Run(ctx, repoPath, "var", "GIT_COMMITTER_IDENT")
	if err != nil {
		return "", fmt.Errorf("committer: %w", err)
	}
	// The first commit's parent is outside the range; every later one's
	// is the commit before it.
	parentTree, err := resolveTree(ctx, repoPath, commits[0].parent)
	if err != nil {
		return "", err
	}
	cur := old
	curTree, err := resolveTree(ctx, repoPath, old)
	if err != nil {
		return "", err
	}
	for i, c := range commits {
		if i > 0 {
			parentTree = commits[i-1].tree
		}
		if c.parent == cur {
			// Already on what the base will be: keep it, committer and
			// all, like git rebase does.
			cur, curTree = c.id, c.tree
			continue
		}
		tree, err := applyTree(ctx, repoPath, c.parent, curTree, c.id)
		if err != nil {
			return "", fmt.Errorf("replay %s: %w", c.id, err)
		}
		if tree == curTree && c.tree != parentTree {
			continue // the base has these changes already
		}
		next, err := rewriteCommit(ctx, repoPath, texts[c.id], tree, cur, strings.TrimSpace(string(committer)))
		if err != nil {
			return "", fmt.Errorf("replay %s: %w", c.id, err)
		}
		cur, curTree = next, tree
	}
	return cur, nil
}

// rangeCommit is one commit of the range replay replays.
type rangeCommit struct {
	id, tree, parent string // parent: the first one
}

// rangeCommits lists from..tip along first parents, oldest first, each
// with its tree and first parent.
func rangeCommits(ctx context.Context, repoPath, from, tip string) ([]rangeCommit, error) {
	out, err := gitcmd.Run(ctx, repoPath, "rev-list", "--reverse", "--first-parent", "--no-commit-header",
		"--format=%H %T %P", tip, "^"+from, "--")
	if err != nil {
		return nil, fmt.Errorf("list %s..%s: %w", from, tip, err)
	}
	var cs []rangeCommit
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 {
			// A root commit cannot be in from..tip: from is an ancestor.
			return nil, fmt.Errorf("rev-list: %q has no parent", l)
		}
		cs = append(cs, rangeCommit{id: f[0], tree: f[1], parent: f[2]})
	}
	return cs, nil
}

// applyTree returns the tree onto with the changes commit made to its
// (first) parent applied: a three-way merge of onto and commit on parent.
// It merges commit with a stand-in commit of onto whose only parent is
// parent: parent is then the best common ancestor of the two, the base
// git's merge-tree picks (for a merge commit too: every ancestor of the
// stand-in is one of parent's). The stand-in stays unreferenced in the
// object store, like merge-tree's own objects. A conflict is a
// *ConflictError.
func applyTree(ctx context.Context, repoPath, parent, onto, commit string) (string, error) {
	ours, err := commitTree(ctx, repoPath, onto, "rebase onto\n", parent)
	if err != nil {
		return "", err
	}
	return mergeTree(ctx, repoPath, ours, commit)
}

// maxCommitText bounds one commit's text as replay reads it; the batch as
// a whole is bounded by gitcmd.MaxStdout.
const maxCommitText = 1 << 20

// commitTexts reads the raw text of each commit with one `git cat-file
// --batch`.
func commitTexts(ctx context.Context, repoPath string, commits []rangeCommit) (map[string][]byte, error) {
	var in bytes.Buffer
	for _, c := range commits {
		in.WriteString(c.id + "\n")
	}
	out, err := gitcmd.RunInput(ctx, repoPath, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("read commits: %w", err)
	}
	texts := make(map[string][]byte, len(commits))
	for len(out) > 0 {
		// "<id> <type> <size>\n<content>\n"
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("cat-file --batch: a header without its line end")
		}
		f := strings.Fields(string(out[:nl]))
		if len(f) != 3 || f[1] != "commit" {
			return nil, fmt.Errorf("cat-file --batch: unexpected header %q", out[:nl])
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size > maxCommitText || nl+1+size+1 > len(out) {
			return nil, fmt.Errorf("cat-file --batch: bad size in %q", out[:nl])
		}
		texts[f[0]] = out[nl+1 : nl+1+size]
		out = out[nl+1+size+1:]
	}
	for _, c := range commits {
		if texts[c.id] == nil {
			return nil, fmt.Errorf("cat-file --batch: no text for %s", c.id)
		}
	}
	return texts, nil
}

// rewriteCommit writes a commit of tree on parent with the author line,
// encoding and message of the commit whose raw text is orig, and
// committer as committer. It is written with hash-object rather than
// commit-tree because commit-tree takes its author from the environment
// only, which gitcmd fixes, and would lose the author's date. A signature
// (gpgsig) is dropped: it signed the old commit, not this one.
func rewriteCommit(ctx context.Context, repoPath string, orig []byte, tree, parent, committer string) (string, error) {
	head, msg, ok := bytes.Cut(orig, []byte("\n\n"))
	if !ok {
		head, msg = bytes.TrimSuffix(orig, []byte("\n")), nil
	}
	var author, encoding string
	for _, l := range strings.Split(string(head), "\n") {
		// Lines starting with a space continue a header (a signature);
		// none of the kept headers has any.
		switch k, v, _ := strings.Cut(l, " "); k {
		case "author":
			author = v
		case "encoding":
			encoding = v
		}
	}
	if author == "" {
		return "", fmt.Errorf("commit has no author")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\nparent %s\nauthor %s\ncommitter %s\n", tree, parent, author, committer)
	if encoding != "" {
		fmt.Fprintf(&b, "encoding %s\n", encoding)
	}
	b.WriteString("\n")
	b.Write(msg)
	// hash-object checks the commit's form (fsck) before writing it.
	out, err := gitcmd.RunInput(ctx, repoPath, b.Bytes(), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("write commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
