//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// codexCLI is a person who installed Codex and signed in once: their
// ~/.codex/config.toml names a model provider (here the stand-in, as a
// custom provider with its key in the environment, the way a company
// gateway is set up) and nothing else. No folder is trusted by hand:
// the built-in profile trusts the worktree Switchboard made (item 3).
var codexCLI = realCLI{profile: "codex", user: func(t *testing.T, home string, model *standinmodel.Server) []string {
	t.Helper()
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// supports_websockets = false: Codex's own models prefer a websocket;
	// the stand-in speaks HTTP with server-sent events only.
	// check_for_update_on_startup = false and analytics off: no request
	// leaves the machine.
	config := fmt.Sprintf(`model_provider = "standin"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.standin]
name = "Stand-in model"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STANDIN_OPENAI_KEY"
supports_websockets = false
`, model.URL)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"STANDIN_OPENAI_KEY=sk-standin"}
}}

// Codex, started by its built-in profile in a worktree Switchboard made,
// claims, acks, publishes and completes three packets with no input typed,
// and leaves no process behind once the app has stopped (the profile's
// --disable daemon_auto_start: no app-server outlives the session).
func TestRealCLICodex(t *testing.T) {
	var home string
	c := codexCLI
	c.user = func(t *testing.T, h string, model *standinmodel.Server) []string {
		home = h
		return codexCLI.user(t, h, model)
	}
	// Registered first, so it runs last: after the app and its sessions
	// have stopped.
	t.Cleanup(func() {
		if home != "" {
			waitNoProcessWithHome(t, home, 5*time.Second)
		}
	})
	r := runRealCLI(t, c, 3)
	t.Logf("figure: codex first tool call after %v", r.firstCall)
}

// waitNoProcessWithHome fails when a process whose environment has
// HOME=home (the agent, or anything it started, such as a codex
// app-server) is still running after wait. It reads /proc; without one it
// checks nothing.
func waitNoProcessWithHome(t *testing.T, home string, wait time.Duration) {
	t.Helper()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		return
	}
	want := []byte("\x00HOME=" + home + "\x00")
	deadline := time.Now().Add(wait)
	for {
		var left []string
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			env, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
				continue
			}
			cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
			left = append(left, filepath.Base(p)+": "+strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))))
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the agent's HOME still running after the app stopped:\n%s", strings.Join(left, "\n"))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
