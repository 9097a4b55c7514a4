package mcpserver

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// MethodWorkPullRequestState asks gh what became of the pull request a
// packet's landing opened.
const MethodWorkPullRequestState Name[WorkGetArgs, PullRequestState] = "work.pull_request_state"

// PullRequestState is the result of work.pull_request_state.
type PullRequestState struct {
	URL string `json:"url"`
	// State is gh's: OPEN, MERGED or CLOSED; "" when it could not be
	// read, and Note says why.
	State string `json:"state,omitempty"`
	Note  string `json:"note,omitempty"`
}

func (r *Registry) registerPullRequestState() {
	m := Define(MethodWorkPullRequestState, On(Packet, store.CapWorkRead), Hidden|ReadOnly,
		"What became of the pull request a packet's landing opened (open, merged, closed), as gh says.",
		func(c *Call, _ WorkGetArgs) (PullRequestState, error) {
			v := c.Prepared
			return *v.(*PullRequestState), nil
		})
	m.Prepare = r.readPullRequestState
	r.Register(m)
}

// readPullRequestState is work.pull_request_state's Prepare: the packet's
// landing read, then gh asked, outside every transaction. A gh that is not
// there or fails leaves the state unknown, and the note says why: the
// pull request's address stands either way.
func (r *Registry) readPullRequestState(c *Call) (any, error) {
	var in WorkGetArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	var p store.Packet
	var repo store.Repository
	if err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = c.packet(in.PacketID); err != nil {
			return err
		}
		repo, err = tx.Repository(p.RepositoryID)
		return err
	}); err != nil {
		return nil, err
	}
	if p.Landed == nil || p.Landed.URL == "" {
		return nil, store.Deny(store.CodeInvalidState, "packet %s opened no pull request", p.ID)
	}
	out := &PullRequestState{URL: p.Landed.URL}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	state, err := workspace.PullRequestState(ctx, repo.Path, p.Landed.URL)
	switch {
	case errors.Is(err, workspace.ErrNoGH):
		out.Note = "gh (the GitHub CLI) is not installed: its state is on the pull request's page"
	case err != nil:
		out.Note = err.Error()
	}
	out.State = state
	return out, nil
}
