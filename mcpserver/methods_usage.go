package mcpserver

import (
	"context"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// MethodAgentUsage records a supervised session's token usage as its
// CLI's own files give it (the daemon reads them with the usage package).
const MethodAgentUsage Name[AgentUsageArgs, struct{}] = "agent.usage"

// UsageRefresher reads a supervised session's usage now, as its CLI's
// files give it (Options.RefreshUsage); ok is false when there is none to
// record yet.
type UsageRefresher func(ctx context.Context, sessionID string) (u store.Usage, ok bool)

// AgentUsageArgs are the arguments of agent.usage: the session's usage so
// far, all of it (not an increment), or Source "none" for a CLI that
// reports nothing.
type AgentUsageArgs struct {
	SessionID string      `json:"session_id"`
	Usage     store.Usage `json:"usage"`
}

func (r *Registry) registerUsage(opts Options) {
	r.refreshUsage = opts.RefreshUsage
	r.Register(Define(MethodAgentUsage, On(Session, store.CapAdmin), Hidden|Internal,
		"Record a supervised session's token usage as its CLI reported it (the daemon, every few seconds while the agent runs and once at its exit).",
		func(c *Call, in AgentUsageArgs) (struct{}, error) {
			_, err := c.Tx.RecordSessionUsage(in.SessionID, in.Usage)
			c.SessionID = in.SessionID
			return struct{}{}, err
		}))
}

// AgentInfo is a supervised agent as agent.list shows it: what the
// supervisor knows, and the session's usage from the store.
type AgentInfo struct {
	supervisor.Info
	// Usage is the session's token usage as its CLI reported it; nil
	// before the first read, Source "none" for a CLI that reports none.
	Usage *store.Usage `json:"usage,omitempty"`
}

// withUsage gives each agent its session's recorded usage.
func withUsage(tx *store.Tx, agents []supervisor.Info) []AgentInfo {
	out := make([]AgentInfo, len(agents))
	for i, a := range agents {
		out[i].Info = a
		if s, err := tx.Session(a.SessionID); err == nil {
			out[i].Usage = s.Usage
		}
	}
	return out
}
