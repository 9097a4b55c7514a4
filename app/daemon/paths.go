package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/atomicfile"
)

// Paths are where Switchboard keeps its files.
type Paths struct {
	// Data holds state.db, recordings/ and logs/.
	Data string
	// Runtime holds mcp-http-endpoint, pid and control.sock.
	Runtime string
}

// Runtime file names.
const (
	EndpointFile = "mcp-http-endpoint"
	PIDFile      = "pid"
)

// DB is the database file.
func (p Paths) DB() string { return filepath.Join(p.Data, "state.db") }

// Endpoint is the file that holds the MCP URL while Switchboard runs.
func (p Paths) Endpoint() string { return filepath.Join(p.Runtime, EndpointFile) }

// tokenFile is the opt-in owner-only file that keeps the client token when
// the keyring does not answer.
func (p Paths) tokenFile() string { return filepath.Join(p.Data, "client-token.json") }

// Recordings is the folder of the sessions' asciicast recordings.
func (p Paths) Recordings() string { return filepath.Join(p.Data, "recordings") }

// Worktrees holds the git worktrees agents work in, one folder per
// repository, one below it per session (made on first use, 0700).
func (p Paths) Worktrees() string { return filepath.Join(p.Data, "worktrees") }

// ControlSocket is the path of the owner-only socket the CLI talks to.
func (p Paths) ControlSocket() string { return filepath.Join(p.Runtime, "control.sock") }

// ResolvePaths applies SPEC §2 with each OS's conventions
// (paths_platform.go): $SWITCHBOARD_DATA_DIR, else the platform's user
// data dir; $SWITCHBOARD_RUNTIME_DIR, else the platform's runtime dir
// ($XDG_RUNTIME_DIR/switchboard on Linux), else <data>/run. getenv is
// os.Getenv outside tests.
func ResolvePaths(getenv func(string) string) (Paths, error) {
	return hostPlatform().resolve(getenv)
}

// MakeDirs creates the data and runtime folders owner-only, and tightens
// them if they already exist looser.
func (p Paths) MakeDirs() error {
	for _, d := range []string{p.Data, filepath.Join(p.Data, "logs"), p.Recordings(), p.Runtime} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("restrict %s: %w", d, err)
		}
	}
	return nil
}

// writeFileAtomic writes data to path with mode 0600 through a temporary
// file and a rename, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o600)
}

// ReadEndpoint returns the URL a running (or crashed) Switchboard wrote.
func ReadEndpoint(p Paths) string {
	b, err := os.ReadFile(p.Endpoint())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
