package app

import (
	"fmt"
	"strconv"

	"github.com/switchboard-dev/switchboard/supervisor"
)

// The "Copy client config" snippets: what a person pastes to connect an
// agent CLI they run by hand to this Switchboard, with the live endpoint and
// the client token filled in. Formats from ../shared/AGENTS.md.

// clientConfig is one entry of the Copy client config submenu.
type clientConfig struct {
	label string
	text  func(endpoint, token string) string
}

var clientConfigs = []clientConfig{
	{labelConfigClaude, claudeCommand},
	{labelConfigCodex, codexTOML},
	{labelConfigJSON, mcpServersJSON},
}

// claudeCommand registers Switchboard with Claude Code (local scope).
func claudeCommand(endpoint, token string) string {
	return fmt.Sprintf("claude mcp add --transport http switchboard %s --header %s",
		shellQuote(endpoint), shellQuote("Authorization: Bearer "+token))
}

// codexTOML is a block for ~/.codex/config.toml. The header is literal
// (Codex does not expand variables in http_headers); the approval mode lets
// Codex call Switchboard's tools without asking each time, which they
// allow: they change only Switchboard's own state.
func codexTOML(endpoint, token string) string {
	return fmt.Sprintf("[mcp_servers.switchboard]\nurl = %s\nhttp_headers = { Authorization = %s }\ndefault_tools_approval_mode = \"approve\"\n",
		strconv.Quote(endpoint), strconv.Quote("Bearer "+token))
}

// mcpServersJSON is the generic mcpServers block most clients read: the same
// file the supervisor gives Claude Code.
func mcpServersJSON(endpoint, token string) string {
	return string(supervisor.MCPServersJSON(endpoint, token))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'\''`...)
			continue
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}
