package mcpserver

import (
	"cmp"
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// MethodWorkLandPlan says what work.land would do, doing none of it.
const MethodWorkLandPlan Name[WorkLandArgs, LandPlanResult] = "work.land_plan"

// LandPlanResult is the result of work.land_plan: what a landing of the
// packet by Mode would bring onto its target branch.
type LandPlanResult struct {
	PacketID string `json:"packet_id"`
	// Mode is the mode the landing would use: the one asked for, else
	// the repository's landing setting, else merge.
	Mode string `json:"mode" jsonschema:"merge, squash, rebase or pull-request"`
	// DefaultMode is the repository's: what work.land does when given no
	// mode.
	DefaultMode string `json:"default_mode" jsonschema:"the repository's landing mode, which work.land uses when given none"`
	// Branch is the packet's branch, where the commits are.
	Branch string `json:"branch"`
	// Remote is where a pull request's branch would be pushed; "" for
	// the other modes.
	Remote string `json:"remote,omitempty"`
	workspace.Plan
}

// errNoPlan is what work.land_plan's handler answers when Prepare handed
// it nothing (it cannot: Prepare returns a plan or an error).
var errNoPlan = errors.New("work.land_plan: no plan was made")

func (r *Registry) registerLandPlan() {
	plan := Define(MethodWorkLandPlan, On(Packet, store.CapWorkRead), Hidden|ReadOnly,
		"What work.land would do to a done packet, doing none of it: the target branch, the mode, the commits it would bring (subject lines) and the files they change. It refuses what work.land would refuse before git runs.",
		func(c *Call, _ WorkLandArgs) (LandPlanResult, error) {
			v := c.Prepared
			p, ok := v.(LandPlanResult)
			if !ok {
				return LandPlanResult{}, errNoPlan
			}
			return p, nil
		})
	plan.Prepare = r.planLanding
	r.Register(plan)
}

// planLanding is work.land_plan's Prepare: the packet read as work.land
// reads it, then git asked, outside every transaction, for the commits
// and files of the range the landing would take.
func (r *Registry) planLanding(c *Call) (any, error) {
	var in WorkLandArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	mode := store.Landing(in.Mode)
	if !mode.Valid() {
		return nil, store.Deny(store.CodeInvalidArgument, "landing mode must be merge, squash, rebase or pull-request, not %q", in.Mode)
	}
	var p store.Packet
	var repo store.Repository
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = tx.Packet(in.PacketID); err != nil {
			return err
		}
		if err := landable(p); err != nil {
			return err
		}
		repo, err = tx.LocalRepository(p.RepositoryID)
		return err
	})
	if err != nil {
		return nil, err
	}
	def := cmp.Or(repo.Landing, store.LandingMerge)
	mode = cmp.Or(mode, def)
	ch := p.Changes
	out := LandPlanResult{PacketID: p.ID, Mode: string(mode), DefaultMode: string(def), Branch: ch.Branch}
	if mode == store.LandingPullRequest {
		out.Remote = cmp.Or(repo.Remote, workspace.DefaultRemote)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	out.Plan, err = workspace.LandPlan(ctx, repo.Path, workspace.PlanRequest{Target: ch.BaseBranch, From: ch.From, To: ch.To})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// landable refuses, as work.land does, a packet that has nothing to land.
func landable(p store.Packet) error {
	switch {
	case p.Changes == nil:
		return store.Deny(store.CodeInvalidState, "packet %s has no commits to land: its agent did not work in a worktree of its own", p.ID)
	case p.Landed != nil:
		return store.Deny(store.CodeInvalidState, "packet %s landed already, as %s", p.ID, p.Landed.Commit)
	case p.State != store.PacketDone:
		return store.Deny(store.CodeInvalidState, "packet %s is %s: only a done packet lands (approve it first)", p.ID, p.State)
	}
	return nil
}
