package supervisor

import (
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/profile"
)

// What an agent's process is given: its placeholders' values and its environment.

// sessionVars are the values of one session's placeholders. {prompt} is
// the prompt only when it goes on the command line (else ""), and
// {mcp_config} is there only for a profile that gets a config file.
func sessionVars(spec LaunchSpec, delivery profile.PromptDelivery, tokenFile, configFile string) map[string]string {
	vars := map[string]string{
		"endpoint": spec.Endpoint, "token_file": tokenFile, "session_id": spec.SessionID,
		"repository_id": spec.RepositoryID, "repository_path": spec.Dir, "prompt": "",
		"conversation_id": spec.ConversationID,
	}
	if delivery == profile.PromptArgument {
		vars["prompt"] = spec.Prompt
	}
	if spec.Profile.MCPConfig != "" {
		vars["mcp_config"] = configFile
	}
	return vars
}

// agentEnv builds the agent's environment: the user's, without any
// SWITCHBOARD_* variable of the app's own (its client token above all) or
// the database's (PG*, DATABASE_URL), nor for a confined agent the
// person's SSH, GPG and session-bus addresses; then the terminal, the
// session's variables and the profile's.
func agentEnv(base []string, spec LaunchSpec, tokenFile string, vars map[string]string) []string {
	env := make([]string, 0, len(base)+8)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "SWITCHBOARD_"), name == "TERM", name == "COLUMNS", name == "LINES":
			continue
		case strings.HasPrefix(name, "PG"), name == "DATABASE_URL":
			// The team database's address and password (libpq's
			// variables): an agent would read and write every
			// instance's queue with them.
			continue
		case spec.Policy != nil && (name == "SSH_AUTH_SOCK" || name == "GPG_AGENT_INFO" || name == "DBUS_SESSION_BUS_ADDRESS"):
			// What the sandbox hides, a confined agent is not pointed
			// at: the person's SSH and GPG agents sign as them, and the
			// session bus leads to their keyring.
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"TERM=xterm-256color",
		"SWITCHBOARD_MCP_URL="+spec.Endpoint,
		"SWITCHBOARD_MCP_TOKEN_FILE="+tokenFile,
		"SWITCHBOARD_SESSION_ID="+spec.SessionID,
		"SWITCHBOARD_REPOSITORY_ID="+spec.RepositoryID,
	)
	if ws := spec.Workspace; ws != nil {
		env = append(env,
			"SWITCHBOARD_WORKTREE="+ws.Path,
			"SWITCHBOARD_BRANCH="+ws.Branch,
			"SWITCHBOARD_BASE="+ws.BaseBranch,
		)
	}
	if spec.Port != 0 {
		env = append(env, "SWITCHBOARD_PORT="+strconv.Itoa(spec.Port))
	}
	if spec.Profile.TokenEnv {
		env = append(env, "SWITCHBOARD_MCP_TOKEN="+spec.Token)
	}
	for _, e := range spec.Profile.Env {
		env = append(env, expand(e, vars))
	}
	return env
}
