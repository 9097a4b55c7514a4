package workspace

// A packet's commits rebased onto its target's tip before it lands, on a
// branch of their own: the agent's branch and worktree, and the person's
// checkout, stay as they are.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// ErrBranchTaken is returned by RebaseBranch when its new branch exists
// and does not point where the caller said it may.
var ErrBranchTaken = errors.New("the branch exists already")

// RebaseRequest names a range to rebase and the branch to put it on.
type RebaseRequest struct {
	// Target is the branch whose tip the range is replayed onto.
	Target string
	// From and To are the range, From its first commit's parent: full
	// commit ids.
	From, To string
	// Branch is the branch made to point at the replayed range's last
	// commit.
	Branch string
	// Was is the commit Branch may point at already (a range this
	// packet rebased before); "" means Branch must not exist.
	Was string
}

// Rebased is a range RebaseBranch replayed.
type Rebased struct {
	// Onto is the target's tip the range was replayed onto: the new
	// range's start.
	Onto string `json:"onto"`
	// Head is the new range's last commit, where Branch now points.
	Head string `json:"head"`
}

// RebaseBranch replays the commits From..To, oldest first, onto the tip of
// Target in the repository at repoPath, as the rebase landing does (each
// with its author and message, the person as committer), and points
// Branch at the last, with `git update-ref` checking Branch's old value
// (Was) so that a branch made or moved meanwhile is refused. Nothing but
// objects and that one ref is written: no checkout, no worktree, no other
// branch. A range that does not apply is a *ConflictError (or, when it
// sits on commits Target lacks and applies with them, a *DependsError),
// and nothing is written but unreferenced objects; a Target that has the
// range's changes already is ErrNothingToLand, and a range already on
// Target's tip is ErrNothingToLand too.
func RebaseBranch(ctx context.Context, repoPath string, req RebaseRequest) (Rebased, error) {
	r, err := rebaseBranch(ctx, repoPath, req)
	if err != nil {
		return Rebased{}, fmt.Errorf("rebase %.12s..%.12s onto %s: %w", req.From, req.To, req.Target, err)
	}
	return r, nil
}

func rebaseBranch(ctx context.Context, repoPath string, req RebaseRequest) (Rebased, error) {
	for _, c := range []string{req.From, req.To} {
		if !isCommitID(c) {
			return Rebased{}, fmt.Errorf("%q is not a full commit id", c)
		}
	}
	if req.Was != "" && !isCommitID(req.Was) {
		return Rebased{}, fmt.Errorf("%q is not a full commit id", req.Was)
	}
	if err := checkBranchName(ctx, repoPath, req.Target); err != nil {
		return Rebased{}, err
	}
	if err := checkBranchName(ctx, repoPath, req.Branch); err != nil {
		return Rebased{}, err
	}
	if err := checkIdentity(ctx, repoPath); err != nil {
		return Rebased{}, err
	}
	ref := "refs/heads/" + req.Branch
	if cur, err := resolveCommit(ctx, repoPath, ref); err == nil && cur != req.Was {
		return Rebased{}, fmt.Errorf("%w: %s is at %.12s, which is not this range", ErrBranchTaken, req.Branch, cur)
	}
	old, err := resolveCommit(ctx, repoPath, "refs/heads/"+req.Target)
	if err != nil {
		return Rebased{}, err
	}
	if req.From == old {
		return Rebased{}, fmt.Errorf("%w: the range starts at %s's tip already", ErrNothingToLand, req.Target)
	}
	onBase, err := isAncestor(ctx, repoPath, req.From, old)
	if err != nil {
		return Rebased{}, err
	}
	// replay reads ws for its names only (and BaseCommit when from is
	// "", which it is not here).
	ws := Workspace{Branch: req.Branch, BaseBranch: req.Target, BaseCommit: req.From}
	head, err := replay(ctx, repoPath, ws, req.From, old, req.To)
	var conflict *ConflictError
	if !onBase && errors.As(err, &conflict) {
		err = dependsOrConflict(ctx, repoPath, conflict, req.From, old, req.To)
	}
	if err != nil {
		return Rebased{}, err
	}
	if head == old {
		return Rebased{}, fmt.Errorf("%w: %s has the range's changes already", ErrNothingToLand, req.Target)
	}
	// The old value: the branch as it was read, or none (an empty old
	// value makes update-ref refuse a branch that exists).
	if _, err := gitcmd.Run(ctx, repoPath, "update-ref", "-m", "switchboard: rebase onto "+req.Target, "--end-of-options", ref, head, req.Was); err != nil {
		if strings.Contains(err.Error(), "exists") || strings.Contains(err.Error(), "expected") || strings.Contains(err.Error(), "is at") {
			return Rebased{}, fmt.Errorf("%w: %s moved meanwhile: %v", ErrBranchTaken, req.Branch, err)
		}
		return Rebased{}, fmt.Errorf("point %s at %.12s: %w", req.Branch, head, err)
	}
	return Rebased{Onto: old, Head: head}, nil
}
