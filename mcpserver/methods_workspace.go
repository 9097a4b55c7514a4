package mcpserver

import (
	"encoding/json"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodRepositoryConfigure Name[RepositoryConfigureArgs, RepositoryResult] = "repository.configure"
	MethodAgentWorkspace      Name[AgentWorkspaceArgs, struct{}]              = "agent.workspace"
)

// RepositoryConfigureArgs are the arguments of repository.configure: the
// repository and its new settings, all of them.
type RepositoryConfigureArgs struct {
	RepositoryID string `json:"repository_id"`
	store.RepositorySettings
}

// RepositoryResult is one repository after a change.
type RepositoryResult struct {
	Repository store.Repository `json:"repository"`
}

// AgentWorkspaceArgs record the worktree a supervised session was given.
type AgentWorkspaceArgs struct {
	SessionID string          `json:"session_id"`
	Workspace store.Workspace `json:"workspace"`
}

func (r *Registry) registerWorkspaces() {
	r.Register(Define(MethodRepositoryConfigure, On(Repository, store.CapAdmin), Hidden,
		"Set a repository's settings: isolation (worktree or none) and the base branch agents start from.",
		func(c *Call, in RepositoryConfigureArgs) (RepositoryResult, error) {
			repo, err := c.Tx.ConfigureRepository(in.RepositoryID, in.RepositorySettings)
			return RepositoryResult{Repository: repo}, err
		}))
	r.Register(Define(MethodAgentWorkspace, On(Session, store.CapAdmin), Hidden|Internal,
		"Record the git worktree a supervised session works in (the supervisor, before the agent starts).",
		func(c *Call, in AgentWorkspaceArgs) (struct{}, error) {
			if _, err := c.Tx.SetSessionWorkspace(in.SessionID, in.Workspace); err != nil {
				return struct{}{}, err
			}
			data, _ := json.Marshal(in.Workspace)
			_, err := c.Tx.AppendTrace(in.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, Data: data})
			return struct{}{}, err
		}))
}
