package daemon

import (
	"os"
	"runtime"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// sandbox is what confines this app's agents: on Linux (bubblewrap or
// Landlock) and macOS (Seatbelt), everything but their worktree read-only,
// and hidden from them Switchboard's data folder (the database,
// recordings, other agents' worktrees), its runtime folder (the control
// socket, other sessions' tokens) and the session bus's folder (the
// keyring behind it). Elsewhere (Windows) nil: agents run unconfined, and
// their sessions say so.
func sandbox(p Paths) *mcpserver.Sandbox {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return nil
	}
	hidden := []string{p.Data, p.Runtime}
	if xdg := os.Getenv("XDG_RUNTIME_DIR"); xdg != "" {
		hidden = append(hidden, xdg)
	}
	return &mcpserver.Sandbox{Hidden: hidden}
}
