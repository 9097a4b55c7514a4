package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrConflict is matched by the *ConflictError Land returns when the
// branch and the base branch changed the same lines: nothing was landed.
var ErrConflict = errors.New("the branch conflicts with its base branch")

// ErrCheckoutInTheWay is matched by the *DirtyError Land returns when the
// base branch is checked out in a work tree that landing would have to
// touch: uncommitted changes or untracked files at paths the landing
// changes, or a merge, rebase, cherry-pick or revert in progress there.
// Nothing was landed and nothing in that work tree changed.
var ErrCheckoutInTheWay = errors.New("the base branch's checkout is in the way")

// ErrBaseMoved is returned when the base branch moved between Land reading
// its tip and moving it; nothing was landed, and landing again computes the
// result afresh.
var ErrBaseMoved = errors.New("the base branch moved during landing")

// ErrNothingToLand is returned when the base branch already has
// everything the branch (or, for a squash, its range) would bring.
var ErrNothingToLand = errors.New("nothing to land")

// ErrDepends is matched by the *DependsError Land returns when the range
// From..To cannot stand alone: it conflicts with the base branch, yet the
// branch up to To, with the commits below From that the base does not
// have, does not. The range builds on those commits (another packet's),
// and can land once they have. Nothing was landed.
var ErrDepends = errors.New("the commits build on commits the base branch does not have")

// ErrNoIdentity is returned when the repository's git configuration has no
// user.name or user.email for the landing commit.
var ErrNoIdentity = errors.New("no git identity (user.name and user.email) configured")

// Mode is how Land brings a branch onto its base.
type Mode string

const (
	// Merge makes a merge commit on the base branch whose second parent is
	// the branch's tip, even when a fast-forward would do: the base's
	// history shows the landing, and the branch's commits become
	// ancestors of the base, so Status reports the workspace Landed.
	// With a From the base does not have (the range sits on another
	// packet's commits), the range alone is replayed onto the base first,
	// as a rebase would, and the merge commit's second parent is the
	// replayed range's last commit: the commits below From never reach
	// the base, and Status keeps counting the branch's own as unlanded.
	Merge Mode = "merge"
	// Squash makes one commit with the base's tip as its only parent and
	// the changes of the range From..branch tip. The branch's commits do
	// not become ancestors of the base, so Status keeps counting them as
	// unlanded: the caller records that the squash commit stands for them
	// (the packet's range), and removes the worktree with force once every
	// packet of it has landed.
	Squash Mode = "squash"
)

// LandRequest says how to land a workspace.
type LandRequest struct {
	// Mode is Merge when empty.
	Mode Mode
	// Message is the landing commit's message; required but for a
	// rebase, whose commits keep their own.
	Message string
	// From is where the range to land starts (the packet's first
	// commit's parent). "" means the workspace's BaseCommit for a squash
	// or a rebase, and the whole branch up to To for a merge. Only the
	// range's changes land, whatever the mode: commits below From that
	// the base does not have (another packet's) never do.
	From string
	// To is the commit to land up to, on ws.Branch: a packet's last commit
	// when the session went on to others; "" means the branch's tip.
	To string
	// Check, when set, is shown the paths the landing changes on the base
	// (from the top of the repository, a rename as its two) once the
	// landing commit exists; an error from it stops the landing with
	// nothing moved, and is returned as it is.
	Check func(paths []string) error
	// BeforeMove, when set, is called once the landing commit exists and
	// every check of the checkout has passed, just before git moves the
	// base branch, with the base's tip and the commit it will move to; an
	// error stops the landing with nothing moved. The caller records there
	// what is about to happen, so that after a crash it can ask git which
	// side of the move it stopped on. A landing refused before it (a
	// conflict, the checkout in the way) never calls it.
	BeforeMove func(old, next string) error
}

// Landed is a landing that happened.
type Landed struct {
	// Commit is the base branch's new tip: the merge or squash commit,
	// or a rebase's last.
	Commit string `json:"commit"`
	Mode   Mode   `json:"mode"`
	// Files counts the paths that differ between the base's old tip and
	// Commit.
	Files int `json:"files"`
}

// ConflictError is a landing refused because the merge has conflicts.
type ConflictError struct {
	// Files are the conflicted paths, as git names them.
	Files []string
}

func (e *ConflictError) Error() string {
	if len(e.Files) == 0 {
		return ErrConflict.Error()
	}
	return fmt.Sprintf("%v: %s", ErrConflict, strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// DependsError is a landing refused because its range builds on commits
// below it that the base does not have (ErrDepends).
type DependsError struct {
	// Files are the paths the range alone conflicts in.
	Files []string
	// Below are the commits below the range the base does not have,
	// newest first, at most maxBelow: the caller finds whose they are.
	Below []string
}

func (e *DependsError) Error() string {
	return fmt.Sprintf("%v (%d commits): it conflicts alone in %s", ErrDepends, len(e.Below), strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrDepends) true.
func (e *DependsError) Is(target error) bool { return target == ErrDepends }

// maxBelow bounds DependsError.Below.
const maxBelow = 1000

// DirtyError is a landing refused because of the state of the work tree
// where the base branch is checked out.
type DirtyError struct {
	// Path is that work tree's folder.
	Path string
	// Files are the paths in the way, when known.
	Files []string
	// Reason says what is in the way, in a sentence.
	Reason string
}

func (e *DirtyError) Error() string {
	s := fmt.Sprintf("%v: %s", ErrCheckoutInTheWay, e.Reason)
	if len(e.Files) > 0 {
		s += ": " + strings.Join(e.Files, ", ")
	}
	return s
}

// Is makes errors.Is(err, ErrCheckoutInTheWay) true.
func (e *DirtyError) Is(target error) bool { return target == ErrCheckoutInTheWay }

// Land brings ws.Branch's commits onto ws.BaseBranch in the repository at
// repoPath, as one merge or squash commit or as rebased commits, without
// touching anyone's uncommitted work. What the agent left uncommitted in ws
// is not part of it: commit it first (CommitAll). Given a range
// (req.From..req.To), only the range's commits land: when they sit on
// commits the base does not have (a packet worked after another, which has
// not landed), they are replayed onto the base alone, and when they cannot
// stand alone there, Land refuses with a *DependsError (ErrDepends) naming
// the commits below.
//
// The result is computed with `git merge-tree`, in the object store only,
// so a conflict (a *ConflictError, ErrConflict) leaves no half merge
// anywhere: no ref moves and no file is written; a replay writes its
// commits there too, with no temporary checkout to leave behind. The
// commit is made with `git commit-tree` as the repository's configured
// user. Then the base branch moves:
//
//   - checked out nowhere: `git update-ref` with the old tip as the
//     expected value, so that a base that moved meanwhile is refused
//     (ErrBaseMoved);
//   - checked out in a work tree (the person's checkout, usually): `git
//     merge --ff-only` there, which updates the files the landing changes
//     and keeps every other uncommitted change and untracked file. Land
//     refuses first (a *DirtyError, ErrCheckoutInTheWay) when an
//     uncommitted change, an untracked or ignored file stands at a path
//     the landing changes or at a folder above a path it adds, when a
//     merge, rebase, cherry-pick or revert is in progress there, or when
//     git's index.lock is there; git refuses the rest itself, before
//     changing anything. It never aborts, stashes or resets the person's
//     work, and never removes a file git does not track.
//
// Between the check that the checked-out base is still at the tip Land
// read and the fast-forward, the person's own git could move it; the
// fast-forward then fails unless they moved it backwards, a window of
// milliseconds Land cannot close without a lock git does not offer.
func Land(ctx context.Context, repoPath string, ws Workspace, req LandRequest) (Landed, error) {
	l, err := land(ctx, repoPath, ws, req)
	if err != nil {
		return Landed{}, fmt.Errorf("land %s on %s: %w", ws.Branch, ws.BaseBranch, err)
	}
	return l, nil
}

func land(ctx context.Context, repoPath string, ws Workspace, req LandRequest) (Landed, error) {
	if err := ws.check(); err != nil {
		return Landed{}, err
	}
	mode := req.Mode
	if mode == "" {
		mode = Merge
	}
	if mode != Merge && mode != Squash && mode != Rebase {
		return Landed{}, fmt.Errorf("landing mode %q: want merge, squash or rebase", mode)
	}
	if strings.HasPrefix(req.From, "-") {
		return Landed{}, fmt.Errorf("from %q is not a commit", req.From)
	}
	msg := strings.TrimSpace(req.Message)
	if msg == "" && mode != Rebase {
		return Landed{}, errors.New("the landing commit's message is empty")
	}
	if err := checkIdentity(ctx, repoPath); err != nil {
		return Landed{}, err
	}
	baseRef := "refs/heads/" + ws.BaseBranch
	old, err := resolveCommit(ctx, repoPath, baseRef)
	if err != nil {
		return Landed{}, err
	}
	tip, err := resolveCommit(ctx, repoPath, "refs/heads/"+ws.Branch)
	if err != nil {
		return Landed{}, err
	}
	if req.To != "" {
		if len(req.To) < 40 || strings.Trim(req.To, "0123456789abcdef") != "" {
			return Landed{}, fmt.Errorf("land up to %q: want a full commit id", req.To)
		}
		// Only a commit of the branch: landing it lands what led to it.
		on, err := isAncestor(ctx, repoPath, req.To, tip)
		if err != nil {
			return Landed{}, err
		}
		if !on {
			return Landed{}, fmt.Errorf("land up to %s: not a commit of %s", req.To, ws.Branch)
		}
		tip = req.To
	}

	// The range's start, and whether the base has it: when it does not,
	// the range sits on commits the base lacks, and only the range lands.
	from := req.From
	if from == "" && mode != Merge {
		from = ws.BaseCommit
	}
	onBase := true
	if from != "" {
		if from, err = resolveCommit(ctx, repoPath, from); err != nil {
			return Landed{}, err
		}
		if ok, err := isAncestor(ctx, repoPath, from, tip); err != nil {
			return Landed{}, err
		} else if !ok {
			return Landed{}, fmt.Errorf("%s from %s: not an ancestor of %s", mode, from, ws.Branch)
		}
		if onBase, err = isAncestor(ctx, repoPath, from, old); err != nil {
			return Landed{}, err
		}
	}

	tree, commit, err := landingCommit(ctx, repoPath, ws, mode, from, onBase, old, tip, msg)
	var conflict *ConflictError
	if !onBase && errors.As(err, &conflict) {
		err = dependsOrConflict(ctx, repoPath, conflict, from, old, tip)
	}
	if err != nil {
		return Landed{}, err
	}
	if commit == "" {
		if commit, err = commitTree(ctx, repoPath, tree, msg+"\n", old); err != nil {
			return Landed{}, err
		}
	}
	changed, err := diffPaths(ctx, repoPath, old, commit)
	if err != nil {
		return Landed{}, err
	}
	if req.Check != nil {
		paths := make([]string, len(changed))
		for i, c := range changed {
			paths[i] = c.path
		}
		if err := req.Check(paths); err != nil {
			return Landed{}, err
		}
	}
	if err := moveBase(ctx, repoPath, ws.BaseBranch, old, commit, changed, req.BeforeMove); err != nil {
		return Landed{}, err
	}
	return Landed{Commit: commit, Mode: mode, Files: len(changed)}, nil
}

// landingCommit computes what mode makes of the range from..tip on old,
// the base's tip: the merge commit, the replayed commits' last, or for a
// squash only the tree (commit ""), which the caller commits on old. from
// is "" for a merge of the whole branch; onBase says whether old has it.
func landingCommit(ctx context.Context, repoPath string, ws Workspace, mode Mode, from string, onBase bool, old, tip, msg string) (tree, commit string, err error) {
	switch mode {
	case Merge:
		if landed, err := isAncestor(ctx, repoPath, tip, old); err != nil {
			return "", "", err
		} else if landed {
			return "", "", fmt.Errorf("%w: %s already has every commit of %s", ErrNothingToLand, ws.BaseBranch, ws.Branch)
		}
		second := tip
		if onBase {
			// The base has everything below the range: merging the
			// branch's tip brings the range and nothing else.
			if tree, err = mergeTree(ctx, repoPath, old, tip); err != nil {
				return "", "", err
			}
		} else {
			if second, err = replay(ctx, repoPath, ws, from, old, tip); err != nil {
				return "", "", err
			}
			if second == old {
				return "", "", fmt.Errorf("%w: %s already has the changes of %s..%s", ErrNothingToLand, ws.BaseBranch, from, ws.Branch)
			}
			if tree, err = resolveTree(ctx, repoPath, second); err != nil {
				return "", "", err
			}
		}
		commit, err = commitTree(ctx, repoPath, tree, msg+"\n", old, second)
		return tree, commit, err
	case Squash:
		if tree, err = squashTree(ctx, repoPath, from, old, tip); err != nil {
			return "", "", err
		}
		oldTree, err := resolveTree(ctx, repoPath, old)
		if err != nil {
			return "", "", err
		}
		if tree == oldTree {
			return "", "", fmt.Errorf("%w: %s already has the changes of %s..%s", ErrNothingToLand, ws.BaseBranch, from, ws.Branch)
		}
		return tree, "", nil
	default: // Rebase
		if commit, err = replay(ctx, repoPath, ws, from, old, tip); err != nil {
			return "", "", err
		}
		if commit == old {
			return "", "", fmt.Errorf("%w: %s already has the changes of %s", ErrNothingToLand, ws.BaseBranch, ws.Branch)
		}
		return "", commit, nil
	}
}

// dependsOrConflict tells, for a range from..tip the base (old) does not
// have the start of and which conflicts on its own, whether it is because
// of the commits below from: when the whole branch up to tip merges with
// the base cleanly, the range needs them, and the answer is a
// *DependsError; else the conflict stands.
func dependsOrConflict(ctx context.Context, repoPath string, conflict *ConflictError, from, old, tip string) error {
	_, err := mergeTree(ctx, repoPath, old, tip)
	var whole *ConflictError
	if errors.As(err, &whole) {
		return conflict
	}
	if err != nil {
		return err
	}
	out, err := gitcmd.Run(ctx, repoPath, "rev-list", fmt.Sprintf("--max-count=%d", maxBelow), from, "^"+old, "--")
	if err != nil {
		return fmt.Errorf("list the commits below %s: %w", from, err)
	}
	return &DependsError{Files: conflict.Files, Below: strings.Fields(string(out))}
}

// checkIdentity makes sure commit-tree will write the configured person
// rather than a name guessed from the machine.
func checkIdentity(ctx context.Context, repoPath string) error {
	for _, key := range []string{"user.name", "user.email"} {
		out, err := gitcmd.Run(ctx, repoPath, "config", "--get", key)
		if code, ok := gitcmd.ExitCode(err); ok && code == 1 || err == nil && strings.TrimSpace(string(out)) == "" {
			return fmt.Errorf("%w: %s is not set in %s", ErrNoIdentity, key, repoPath)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
	}
	return nil
}

// mergeTree merges the commits ours and theirs in the object store and
// returns the resulting tree, or a *ConflictError naming the conflicted
// paths. Nothing outside .git/objects is written.
func mergeTree(ctx context.Context, repoPath, ours, theirs string) (string, error) {
	out, err := gitcmd.Run(ctx, repoPath, "merge-tree", "--write-tree", "--no-messages", "-z", "--name-only", ours, theirs)
	code, exited := gitcmd.ExitCode(err)
	if err != nil && (!exited || code != 1) {
		return "", fmt.Errorf("merge: %w", err)
	}
	tree, files := parseMergeTree(out)
	if tree == "" {
		return "", fmt.Errorf("merge-tree printed no tree")
	}
	if err != nil {
		// Status 1: conflicts. The tree holds conflict markers and is
		// never committed.
		return "", &ConflictError{Files: files}
	}
	return tree, nil
}

// parseMergeTree reads `git merge-tree --write-tree --no-messages -z
// --name-only`: the tree's id, then, after a conflict, each conflicted path,
// every field NUL-terminated. A path conflicted in several stages is
// named once.
func parseMergeTree(out []byte) (tree string, files []string) {
	fields := splitZ(out)
	if len(fields) == 0 {
		return "", nil
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	return fields[0], files
}

// squashTree returns the tree of base with the changes from..tip applied:
// a three-way merge of base and tip on from. git 2.39's merge-tree cannot
// be told a merge base, so it is given one: three commits made only for
// this merge, tip's and base's trees each on top of from's tree as a root
// commit, whose merge base is then that root. They stay unreferenced in
// the object store, like merge-tree's own objects.
func squashTree(ctx context.Context, repoPath, from, base, tip string) (string, error) {
	var trees [3]string
	for i, c := range []string{from, base, tip} {
		t, err := resolveTree(ctx, repoPath, c)
		if err != nil {
			return "", err
		}
		trees[i] = t
	}
	root, err := commitTree(ctx, repoPath, trees[0], "squash base\n")
	if err != nil {
		return "", err
	}
	ours, err := commitTree(ctx, repoPath, trees[1], "squash ours\n", root)
	if err != nil {
		return "", err
	}
	theirs, err := commitTree(ctx, repoPath, trees[2], "squash theirs\n", root)
	if err != nil {
		return "", err
	}
	return mergeTree(ctx, repoPath, ours, theirs)
}

// commitTree writes a commit of tree with parents and returns its id.
func commitTree(ctx context.Context, repoPath, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-", tree)
	out, err := gitcmd.RunInput(ctx, repoPath, []byte(msg), args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func resolveTree(ctx context.Context, repoPath, commit string) (string, error) {
	out, err := gitcmd.Run(ctx, repoPath, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("tree of %s: %w", commit, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// isAncestor reports whether a is an ancestor of (or is) b.
func isAncestor(ctx context.Context, repoPath, a, b string) (bool, error) {
	_, err := gitcmd.Run(ctx, repoPath, "merge-base", "--is-ancestor", a, b)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("merge-base --is-ancestor: %w", err)
	}
	return true, nil
}
