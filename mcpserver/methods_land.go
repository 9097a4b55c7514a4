package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodWorkLand Name[WorkLandArgs, LandResult] = "work.land"
)

// WorkLandArgs are the arguments of work.land.
type WorkLandArgs struct {
	PacketID string `json:"packet_id"`
	// Mode is merge (the default) or squash.
	Mode string `json:"mode,omitempty" jsonschema:"merge (default): a merge commit of the packet's commits; squash: one commit of their changes"`
}

// LandResult is the result of work.land.
type LandResult struct {
	Packet store.Packet `json:"packet"`
	// Commit is the base branch's new tip.
	Commit string `json:"commit"`
	Files  int    `json:"files"`
}

// landing is what work.land's Prepare did in git, for the handler to
// record.
type landing struct {
	workspace.Landed
}

func (r *Registry) registerLanding() {
	land := Define(MethodWorkLand, On(Packet, store.CapAdmin), Hidden,
		"Bring a done packet's commits onto its base branch (merge or squash); the person's checkout keeps every uncommitted change, and a conflict moves nothing.",
		func(c *Call, in WorkLandArgs) (LandResult, error) {
			v, err := c.Prepared()
			if err != nil {
				return LandResult{}, err
			}
			l, ok := v.(landing)
			if !ok {
				return LandResult{}, errNoLanding
			}
			p, err := c.Tx.MarkPacketLanded(in.PacketID, l.Commit, string(l.Mode))
			if err != nil {
				return LandResult{}, err
			}
			data := fmt.Appendf(nil, `{"landed":%q,"mode":%q}`, l.Commit, l.Mode)
			if _, err := c.Tx.AppendTrace(p.Changes.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, PacketID: p.ID, Data: data}); err != nil && store.CodeOf(err) != store.CodeNotFound {
				return LandResult{}, err
			}
			r.signalAfter(c, repoKey(p.RepositoryID))
			// A merged worktree whose session has ended has nothing left
			// in it: it goes (TidyWorktree checks, and keeps it otherwise).
			ses, ctx := p.Changes.SessionID, context.WithoutCancel(c.Ctx)
			c.AfterCommit(func() { r.TidyWorktree(ctx, ses) })
			return LandResult{Packet: p, Commit: l.Commit, Files: l.Files}, nil
		})
	land.Prepare = r.landPacket
	r.Register(land)
}

// errNoLanding is what the handler answers when Prepare handed it nothing
// (it cannot: Prepare returns a landing or an error).
var errNoLanding = errors.New("work.land: no landing was made")

// landPacket is work.land's Prepare: git moves the base branch, outside
// every transaction; the handler then records it on the packet. A landing
// that git made and whose record then fails (the app killed in between)
// leaves the packet unlanded with its commits on the base: landing it again
// answers that nothing is left to land.
func (r *Registry) landPacket(c *Call) (any, error) {
	var in WorkLandArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	mode := workspace.Mode(in.Mode)
	switch mode {
	case "":
		mode = workspace.Merge
	case workspace.Merge, workspace.Squash:
	default:
		return nil, store.Deny(store.CodeInvalidArgument, "landing mode must be merge or squash, not %q", in.Mode)
	}
	var p store.Packet
	var repo store.Repository
	var ses store.Session
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = tx.Packet(in.PacketID); err != nil {
			return err
		}
		switch {
		case p.Changes == nil:
			return store.Deny(store.CodeInvalidState, "packet %s has no commits to land: its agent did not work in a worktree of its own", p.ID)
		case p.Landed != nil:
			return store.Deny(store.CodeInvalidState, "packet %s landed already, as %s", p.ID, p.Landed.Commit)
		case p.State != store.PacketDone:
			return store.Deny(store.CodeInvalidState, "packet %s is %s: only a done packet lands (approve it first)", p.ID, p.State)
		}
		if repo, err = tx.Repository(p.RepositoryID); err != nil {
			return err
		}
		ses, err = tx.Session(p.Changes.SessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ses.Workspace == nil {
		return nil, store.Deny(store.CodeInvalidState, "session %s has no worktree", ses.ID)
	}
	ch := p.Changes
	ws := workspace.Workspace{Path: ses.Workspace.Path, Branch: ch.Branch, BaseBranch: ch.BaseBranch, BaseCommit: ses.Workspace.BaseCommit}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	req := workspace.LandRequest{Mode: mode, To: ch.To, Message: fmt.Sprintf("%s\n\nSwitchboard-Packet: %s", p.Title, p.ID)}
	if mode == workspace.Squash {
		// The packet's own commits; a merge brings what led to them too.
		req.From = ch.From
	}
	l, err := workspace.Land(ctx, repo.Path, ws, req)
	var conflict *workspace.ConflictError
	var dirty *workspace.DirtyError
	switch {
	case errors.As(err, &conflict):
		return nil, store.Deny(store.CodeMergeConflict, "%s conflicts with %s in %s: nothing was moved; send it back to be rebased onto %s",
			p.ID, ch.BaseBranch, listFiles(conflict.Files), ch.BaseBranch)
	case errors.As(err, &dirty):
		what := dirty.Reason
		if len(dirty.Files) > 0 {
			what = strings.TrimSpace(what + ": " + listFiles(dirty.Files))
		}
		return nil, store.Deny(store.CodeCheckoutInTheWay, "landing on %s would touch what is in the way in %s (%s): nothing was moved", ch.BaseBranch, dirty.Path, what)
	case errors.Is(err, workspace.ErrNothingToLand):
		return nil, store.Deny(store.CodeInvalidState, "%s already holds packet %s's changes", ch.BaseBranch, p.ID)
	case errors.Is(err, workspace.ErrNoIdentity):
		return nil, store.Deny(store.CodeInvalidState, "%v", err)
	case errors.Is(err, workspace.ErrBaseMoved):
		return nil, store.Deny(store.CodeInvalidState, "%s moved while landing: nothing was moved, try again", ch.BaseBranch)
	case err != nil:
		return nil, err
	}
	return landing{l}, nil
}
