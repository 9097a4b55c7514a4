package daemon

// The daemon's upkeep of what other runs and the clock leave behind: lease
// expiry and the worktree prune, which run while it serves, and the start's
// sweep of the sessions an earlier run left running.

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/workspace"
)

// expireLeases returns packets whose lease expired to the queue, through the
// registry (audited, signalled to waiting agents), each time the earliest
// lease expires. It wakes when leases change, and looks at least once a
// minute in case the clock jumped.
func (d *Daemon) expireLeases(ctx context.Context) {
	for {
		changed := d.reg.LeasesChanged()
		wait := time.Minute
		if at, ok := d.reg.NextLeaseExpiry(ctx); ok {
			if !time.Now().Before(at) {
				_, err := mcpserver.Invoke(ctx, d.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, mcpserver.MethodWorkExpireLeases, mcpserver.NoArgs{})
				if err == nil {
					continue
				}
				if ctx.Err() == nil {
					d.log.Error("lease expiry", "err", err)
				}
				wait = time.Second // do not spin on a failing store
			} else {
				wait = min(wait, time.Until(at))
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// pruneTimeout bounds the worktree prune of all repositories at start.
const pruneTimeout = 30 * time.Second

// pruneWorktrees makes git forget, in every registered git repository,
// Switchboard's worktrees whose folders are gone (deleted by hand, or a
// discard a crash cut short), once at start and in the background: it is
// bookkeeping, no start waits for it. workspace.Prune, not a bare `git
// worktree prune`: that would also forget the person's own worktrees on a
// disk not mounted at the moment. Best effort: a failure is logged.
func (d *Daemon) pruneWorktrees(ctx context.Context) {
	var repos []store.Repository
	if err := d.db.View(ctx, func(tx *store.Tx) (err error) {
		repos, err = tx.Repositories()
		return err
	}); err != nil {
		d.log.Warn("worktree prune: list repositories", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, pruneTimeout)
	defer cancel()
	for _, r := range repos {
		if ok, err := workspace.IsRepository(ctx, r.Path); err != nil || !ok {
			continue // gone, or not a git repository: nothing of ours to prune
		}
		pruned, err := workspace.Prune(ctx, r.Path, d.cfg.Paths.Worktrees())
		if err != nil {
			d.log.Warn("worktree prune", "repository", r.ID, "err", err)
		}
		if len(pruned) > 0 {
			d.log.Info("worktree prune: forgot worktrees whose folders are gone", "repository", r.ID, "worktrees", pruned)
		}
	}
}

// sweepLostSessions ends, as lost, the supervised sessions an earlier run
// left running: their agents died with it or were orphaned by a crash. An
// orphan still alive (the very process: pid and start time) is stopped,
// since nothing watches or records it any more; its token files go; its
// session token is revoked, and its leases go back to the queue unless the
// session can be resumed (they then stay with it until they expire). External
// sessions live in processes Switchboard never owned and stay.
func (d *Daemon) sweepLostSessions(ctx context.Context) error {
	var lost []store.Session
	err := d.db.View(ctx, func(tx *store.Tx) error {
		ss, err := tx.RunningSessions()
		for _, s := range ss {
			// In team mode the others' sessions run on their machines.
			if s.Kind == store.SessionSupervised && s.Instance == tx.InstanceID() {
				lost = append(lost, s)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, s := range lost {
		reason := "Switchboard stopped while it ran"
		// Its files first: by the time its processes are gone, so is
		// its token.
		for _, f := range supervisor.SessionFiles(d.cfg.Paths.Runtime, s.ID) {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				d.log.Warn("remove a lost session's file", "session", s.ID, "err", err)
			}
		}
		if found, err := supervisor.StopStale(ctx, s.PID, s.ProcStart, 3*time.Second); err != nil {
			d.log.Error("stop an agent orphaned by an earlier run", "session", s.ID, "pid", s.PID, "err", err)
		} else if found {
			reason += "; its orphaned agent was stopped"
		}
		if found, err := d.agents.EndLeftovers(s.ID); err != nil {
			d.log.Error("end what an orphaned agent left in its cgroup", "session", s.ID, "err", err)
		} else if found && !strings.Contains(reason, "stopped") {
			reason += "; what its orphaned agent left running was stopped"
		}
		d.findLostConversation(ctx, s)
		d.usage.exited(s.ID) // what its CLI wrote before it died, before its end
		// With the app: a session whose agent can resume its conversation
		// keeps its worktree and, while it lasts, its lease (agent.resume).
		if err := d.reg.EndSession(ctx, mcpserver.SessionEndArgs{SessionID: s.ID, Lost: true, Reason: reason, WithApp: true}); err != nil {
			return err
		}
		d.log.Warn("session left running by an earlier run marked lost", "session", s.ID, "reason", reason)
	}
	return nil
}

// findLostConversation records the conversation id of a lost session whose
// CLI picks its own (Codex) when the crash came before the run saw it: the
// CLI's file is still there, and with it the session can be resumed.
// Best effort: a failure is logged.
func (d *Daemon) findLostConversation(ctx context.Context, s store.Session) {
	if s.ConversationID != "" || s.Workspace == nil {
		return
	}
	var stored []profile.Profile
	if err := d.db.View(ctx, func(tx *store.Tx) (err error) { stored, err = tx.Profiles(); return err }); err != nil {
		d.log.Warn("find a lost session's conversation: profiles", "session", s.ID, "err", err)
		return
	}
	p, ok := supervisor.FindProfile(stored, s.Profile)
	if !ok {
		return
	}
	id, err := d.agents.FindConversationNow(p.Profile, s.Workspace.Path, s.StartedAt)
	if err != nil || id == "" {
		if err != nil {
			d.log.Warn("find a lost session's conversation", "session", s.ID, "err", err)
		}
		return
	}
	if _, err := mcpserver.Invoke(ctx, d.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, mcpserver.MethodAgentStarted,
		mcpserver.AgentStartedArgs{SessionID: s.ID, ConversationID: id}); err != nil {
		d.log.Warn("record a lost session's conversation", "session", s.ID, "err", err)
	}
}
