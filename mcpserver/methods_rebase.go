package mcpserver

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// MethodWorkRebase rebases a packet waiting to land onto its target's tip.
const MethodWorkRebase Name[WorkConflictHunksArgs, RebaseResult] = "work.rebase"

// RebaseResult is the result of work.rebase.
type RebaseResult struct {
	// Packet is the packet, its Changes the rebased range (and
	// Changes.RebasedFrom the agent's).
	Packet store.Packet `json:"packet"`
	// Branch is the new branch the rebased commits are on.
	Branch string `json:"branch"`
	// Onto is the target's commit the range was replayed onto; Head, the
	// rebased range's last commit.
	Onto string `json:"onto"`
	Head string `json:"head"`
}

// rebasing is what work.rebase's Prepare did in git, for the handler to
// record: the range it rebased (Was) and the new one.
type rebasing struct {
	was  string
	next store.PacketRange
}

// rebasedSuffix names the branch a packet's rebased commits go on: its
// agent's branch with this after it.
const rebasedSuffix = "-rebased"

var errNoRebase = errors.New("work.rebase: no rebase was made")

func (r *Registry) registerRebase() {
	rebase := Define(MethodWorkRebase, On(Packet, store.CapAdmin), Hidden,
		"Rebase a done or in-review packet's own commits onto its target branch's tip, in git's object store, onto a new branch <its branch>-rebased; the packet then names that range, which its landing takes. The agent's branch and worktree, and the person's checkout, are not touched; a conflict writes nothing and names the files.",
		func(c *Call, in WorkConflictHunksArgs) (RebaseResult, error) {
			v := c.Prepared
			rb, ok := v.(rebasing)
			if !ok {
				return RebaseResult{}, errNoRebase
			}
			cur, err := c.Tx.Packet(in.PacketID)
			if err != nil {
				return RebaseResult{}, err
			}
			if cur.Changes == nil || cur.Changes.To != rb.was {
				// Completed again, or rebased by another call, meanwhile:
				// the branch stays, and a new rebase is refused until it
				// is removed.
				return RebaseResult{}, store.Deny(store.CodeInvalidState, "packet %s changed while it was rebased: branch %s holds the rebase, which the packet does not name", cur.ID, rb.next.Branch)
			}
			p, err := c.Tx.RebasePacket(in.PacketID, rb.next)
			if err != nil {
				return RebaseResult{}, err
			}
			r.signalAfter(c, QueueKey(p.RepositoryID))
			return RebaseResult{Packet: p, Branch: rb.next.Branch, Onto: rb.next.From, Head: rb.next.To}, nil
		})
	rebase.Prepare = r.rebasePacket
	r.Register(rebase)
}

// rebasePacket is work.rebase's Prepare: git replays the packet's range
// onto its target's tip and points the new branch at it, outside every
// transaction; the handler records the new range on the packet. It holds
// the packet as work.land does, so that a landing and a rebase of it do
// not run at once.
func (r *Registry) rebasePacket(c *Call) (any, error) {
	var in WorkConflictHunksArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	if !r.landingNow.claim(in.PacketID) {
		return nil, store.Deny(store.CodeInvalidState, "packet %s is being landed or rebased already", in.PacketID)
	}
	defer r.landingNow.release(in.PacketID)
	p, repo, err := r.preparePacket(c, in.PacketID)
	if err != nil {
		return nil, err
	}
	if !awaitsLanding(p) {
		return nil, store.Deny(store.CodeInvalidState, "packet %s has no commits waiting to land: only a done or in_review packet with commits of its own, not landed, is rebased", p.ID)
	}
	ch := p.Changes
	if ch.From == "" {
		return nil, store.Deny(store.CodeInvalidState, "packet %s was recorded without the start of its range: it cannot be rebased alone; send it back instead", p.ID)
	}
	// The branch is named after the agent's, also when rebased again; a
	// packet rebased before may move its own branch.
	agent, was := ch.Branch, ""
	if ch.RebasedFrom != nil {
		agent = ch.RebasedFrom.Branch
	}
	branch := agent + rebasedSuffix
	if ch.Branch == branch {
		was = ch.To
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	got, err := workspace.RebaseBranch(ctx, repo.Path, workspace.RebaseRequest{Target: ch.BaseBranch, From: ch.From, To: ch.To, Branch: branch, Was: was})
	var conflict *workspace.ConflictError
	var depends *workspace.DependsError
	switch {
	case errors.As(err, &conflict):
		return nil, store.Deny(store.CodeMergeConflict, "%s does not rebase onto %s: it conflicts in %s; nothing was written; send it back to its agent",
			p.ID, ch.BaseBranch, listFiles(conflict.Files)).WithPaths(conflict.Files)
	case errors.As(err, &depends):
		return nil, r.dependsDenial(c, p, depends)
	case errors.Is(err, workspace.ErrBranchTaken):
		return nil, store.Deny(store.CodeInvalidState, "branch %s exists and is not packet %s's range: nothing was written (%v)", branch, p.ID, err)
	case errors.Is(err, workspace.ErrNothingToLand):
		return nil, store.Deny(store.CodeInvalidState, "packet %s needs no rebase onto %s: %v", p.ID, ch.BaseBranch, err)
	case errors.Is(err, workspace.ErrNoIdentity):
		return nil, store.Deny(store.CodeInvalidState, "%v", err)
	case err != nil:
		return nil, err
	}
	return rebasing{was: ch.To, next: store.PacketRange{Branch: branch, From: got.Onto, To: got.Head}}, nil
}
