package mcpserver

import (
	"os/exec"
	"strings"
	"testing"
)

// The core is the registry and its methods, whatever carries the calls: it
// reaches no transport. HTTP, the MCP SDK and the GUI toolkit live above it
// (mcphttp, app), and an import of one here would pull the core back up.
func TestCoreImportsNoTransport(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.CommandContext(t.Context(), goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, forbidden := range []string{
		"net/http",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"fyne.io/fyne/v2",
		"github.com/switchboard-dev/switchboard/mcphttp",
	} {
		for _, d := range deps {
			if d == forbidden {
				t.Errorf("the core imports %s (go list -deps)", forbidden)
			}
		}
	}
}
