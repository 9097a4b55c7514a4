package daemon

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/usage"
)

// DefaultUsageEvery is how often the daemon reads the usage of the agents
// it runs: a stat of each agent's session files, and only the bytes added
// since the last read.
const DefaultUsageEvery = 3 * time.Second

// errNotRunning: a session's agent has not started yet.
var errNotRunning = errors.New("the agent has not started yet")

// errNotSupervised: an external session's agent runs elsewhere; its files
// are not Switchboard's to read.
var errNotSupervised = errors.New("not a supervised session")

// usageWatch follows the usage of the supervised sessions this daemon
// runs, through their CLIs' own files (the usage package), and records it
// with agent.usage whenever it changed: every few seconds while an agent
// runs and once more when it exits, before its end releases its leases
// (a packet's share is counted at that end).
type usageWatch struct {
	d *Daemon

	mu sync.Mutex
	// sessions are the sessions followed, by id. Guarded by mu.
	sessions map[string]*sessionUsage
}

// sessionUsage follows one session.
type sessionUsage struct {
	// mu serializes reads: the poll and the exit's last read may meet.
	mu sync.Mutex
	// r reads the CLI's files; nil for a CLI that reports nothing.
	r *usage.Reader
	// last is what was last recorded; recorded is false before the first.
	last     store.Usage
	recorded bool
}

func newUsageWatch(d *Daemon) *usageWatch {
	return &usageWatch{d: d, sessions: map[string]*sessionUsage{}}
}

// run reads every live supervised session's usage each interval until ctx
// ends.
func (w *usageWatch) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		live, err := w.live()
		if err != nil {
			w.d.log.Warn("usage: list sessions", "err", err)
			continue
		}
		for _, s := range live {
			w.read(ctx, s.ID)
		}
		w.forget(live)
	}
}

// live lists the live supervised sessions.
func (w *usageWatch) live() ([]store.Session, error) {
	var out []store.Session
	err := w.d.db.View(context.Background(), func(tx *store.Tx) error {
		ss, err := tx.RunningSessions()
		for _, s := range ss {
			if s.Kind == store.SessionSupervised {
				out = append(out, s)
			}
		}
		return err
	})
	return out, err
}

// forget drops the sessions no longer live.
func (w *usageWatch) forget(live []store.Session) {
	keep := map[string]bool{}
	for _, s := range live {
		keep[s.ID] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for id := range w.sessions {
		if !keep[id] {
			delete(w.sessions, id)
		}
	}
}

// refresh reads session id's usage now, for a completion
// (mcpserver.Options.RefreshUsage), which records it in its own
// transaction, so the packet's share includes the reply that completed it.
// A CLI that writes its file in the background may not have written that
// reply yet, nor the one before it: Claude Code queues transcript lines and
// flushes them every 100 ms. refresh then reads until the file has been
// quiet for the CLI's usage.WriteLag (250 ms for Claude Code, 200 for
// Codex, none for Gemini CLI), at most four times that: what a completion
// costs in time. ok is false when the CLI has written nothing yet.
func (w *usageWatch) refresh(ctx context.Context, id string) (u store.Usage, ok bool) {
	if _, running := w.d.agents.Get(id); !running {
		return store.Usage{}, false
	}
	su, err := w.follow(id)
	if err != nil {
		w.d.log.Debug("usage: follow session", "session", id, "err", err)
		return store.Usage{}, false
	}
	u, ok = w.current(id, su)
	if su.r == nil || su.r.WriteLag() == 0 {
		return u, ok
	}
	quiet := su.r.WriteLag()
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	begin, last := time.Now(), time.Now()
	for time.Since(last) < quiet && time.Since(begin) < 4*quiet {
		select {
		case <-ctx.Done():
			return u, ok
		case <-t.C:
		}
		if now, found := w.current(id, su); found && (!ok || now != u) {
			u, ok, last = now, true, time.Now()
		}
	}
	return u, ok
}

// exited is the last read of a session whose agent exited, before its end
// is recorded.
func (w *usageWatch) exited(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w.read(ctx, id)
	w.mu.Lock()
	delete(w.sessions, id)
	w.mu.Unlock()
}

// current reads session id's usage from its CLI's files; ok is false when
// the CLI has written nothing yet. A CLI that reports none reads as
// Source "none". Failures are logged: usage is a view of the agent's
// work, never a reason to stop it.
func (w *usageWatch) current(id string, su *sessionUsage) (store.Usage, bool) {
	su.mu.Lock()
	defer su.mu.Unlock()
	if su.r == nil {
		return store.Usage{Source: profile.UsageNone}, true
	}
	u, found, err := su.r.Read()
	if err != nil {
		w.d.log.Debug("usage: read", "session", id, "err", err)
	}
	return u, found
}

// read reads session id's usage and records it when it changed.
func (w *usageWatch) read(ctx context.Context, id string) {
	su, err := w.follow(id)
	if err != nil {
		w.d.log.Debug("usage: follow session", "session", id, "err", err)
		return
	}
	u, ok := w.current(id, su)
	su.mu.Lock()
	defer su.mu.Unlock()
	if !ok || su.recorded && u == su.last {
		return
	}
	_, err = mcpserver.Invoke(ctx, w.d.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, mcpserver.MethodAgentUsage,
		mcpserver.AgentUsageArgs{SessionID: id, Usage: u})
	if err != nil {
		w.d.log.Warn("usage: record", "session", id, "err", err)
		return
	}
	su.last, su.recorded = u, true
}

// follow returns the follower of session id, making it on first use from
// the session's record and its profile's usage source.
func (w *usageWatch) follow(id string) (*sessionUsage, error) {
	w.mu.Lock()
	su, ok := w.sessions[id]
	w.mu.Unlock()
	if ok {
		return su, nil
	}
	var (
		s       store.Session
		dir     string
		profile profile.Profile
	)
	err := w.d.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		if s, err = tx.Session(id); err != nil {
			return err
		}
		if s.Kind != store.SessionSupervised {
			return errNotSupervised
		}
		if s.State == store.SessionStarting {
			// Its worktree may not be recorded yet: the folder to look
			// in is known once the agent runs.
			return errNotRunning
		}
		stored, err := tx.Profiles()
		if err != nil {
			return err
		}
		if p, ok := supervisor.FindProfile(stored, s.Profile); ok {
			profile = p.Profile
		}
		if s.Workspace != nil {
			dir = s.Workspace.Path
		} else if repo, err := tx.Repository(s.RepositoryID); err == nil {
			dir = repo.Path
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	su = &sessionUsage{}
	if profile.Usage != "" && dir != "" {
		r, err := usage.New(profile.Usage, usage.Locate{Dir: dir, ConversationID: s.ConversationID, Since: s.StartedAt, LookupEnv: agentEnv(profile)})
		if err != nil {
			return nil, err
		}
		su.r = r
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.sessions[id]; ok {
		return old, nil // another read made it meanwhile
	}
	w.sessions[id] = su
	return su, nil
}

// agentEnv reads the environment an agent of profile p gets: this
// process's, with the profile's own plain NAME=value entries over it (a
// profile may move the CLI's config folder, e.g. CODEX_HOME).
func agentEnv(p profile.Profile) func(string) (string, bool) {
	own := map[string]string{}
	for _, e := range p.Env {
		if name, value, ok := strings.Cut(e, "="); ok && !strings.Contains(value, "{") {
			own[name] = value
		}
	}
	return func(name string) (string, bool) {
		if v, ok := own[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}
