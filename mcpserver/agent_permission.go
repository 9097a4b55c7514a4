package mcpserver

import (
	"os"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// checkPermission decides agent.start's permission mode, in its
// transaction: a mode the profile offers (and its CLI would run in here),
// and for auto Switchboard's sandbox (unconfined says why the agent would
// run without it), a worktree of the session's own and the repository's
// confirmation, which confirm_full_auto records the first time. confirmed
// is set when this call recorded it.
//
// A worktree is made only after the commit (launch): a plan that cannot
// give one (isolation none, or no_worktree) is refused here; a folder that
// turns out not to be a git repository is refused by the supervisor
// (supervisor.ErrAutoNeedsWorktree) before anything runs.
func checkPermission(c *Call, in AgentStartArgs, p profile.Profile, repo store.Repository, plan worktreePlan, unconfined string) (mode profile.Permission, confirmed bool, err error) {
	if err := profile.CheckPermission(in.Permission); err != nil {
		return "", false, store.Deny(store.CodeInvalidArgument, "%v", err)
	}
	mode = in.Permission.Or()
	if _, err := supervisor.PermissionArgs(p, mode, os.Geteuid()); err != nil {
		return "", false, err
	}
	if mode != profile.PermissionAuto {
		if in.ConfirmFullAuto {
			return "", false, store.Deny(store.CodeInvalidArgument, "confirm_full_auto goes with permission auto, not %s", mode)
		}
		return mode, false, nil
	}
	if unconfined != "" {
		return "", false, store.Deny(store.CodeInvalidArgument,
			"full auto runs only confined, and this agent would not be (%s): choose ask or edits", unconfined)
	}
	if plan.isolation == store.IsolationNone {
		return "", false, store.Deny(store.CodeInvalidArgument,
			"full auto runs only in a worktree of the session's own, and this start has none (the repository's isolation is none, or no_worktree was asked): choose ask or edits, or let the agent work in a worktree")
	}
	if repo.FullAuto != nil {
		return mode, false, nil
	}
	if !in.ConfirmFullAuto {
		return "", false, store.Deny(store.CodeInvalidState,
			"full auto is not confirmed for repository %s: agents there would edit and run commands with nobody asked; a person confirms it once (agent start --permission auto --yes, or the tray's dialog; confirm_full_auto in agent.start)", repo.ID)
	}
	if _, err := c.Tx.ConfirmFullAuto(repo.ID, string(c.Transport)); err != nil {
		return "", false, err
	}
	return mode, true, nil
}
