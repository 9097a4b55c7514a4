//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// codexCLI is a person who installed Codex and signed in once: their
// ~/.codex/config.toml names a model provider (here the stand-in, as a
// custom provider with its key in the environment, the way a company
// gateway is set up; a sign-in with ChatGPT or an API key would skip the
// same sign-in menu) and nothing else, so Codex uses its default model.
// No folder is trusted by hand: the built-in profile trusts the worktree
// Switchboard made (item 3).
var codexCLI = realCLI{profile: "codex", user: codexUser("")}

// codexLegacyCLI keeps an older model, gpt-5.5, which Codex offers tools
// to as functions rather than through code mode's exec. Codex asks once
// whether to move to its newer model ("Meet GPT-6 Sol"); the person said
// "Use existing model", which Codex records under notice.model_migrations.
var codexLegacyCLI = realCLI{profile: "codex", user: codexUser(`model = "gpt-5.5"

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
`)}

// codexUser writes the person's ~/.codex/config.toml
// (standinmodel.CodexHome): the stand-in as their model provider, then
// more (top-level keys first, then tables).
func codexUser(more string) func(t *testing.T, home string, model *standinmodel.Server) []string {
	return func(t *testing.T, home string, model *standinmodel.Server) []string {
		t.Helper()
		env, err := standinmodel.CodexHome(home, model, more)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
}

// Codex, started by its built-in profile in a worktree Switchboard made,
// claims, acks, publishes and completes three packets with no input typed,
// and leaves no process behind once the app has stopped (the profile's
// --disable daemon_auto_start: no app-server outlives the session).
func TestRealCLICodex(t *testing.T) {
	r := runCodex(t, codexCLI)
	t.Logf("figure: codex first tool call after %v", r.firstCall)
	// The same with a model Codex offers function tools to, the other
	// way it calls an MCP tool.
	t.Run("function tools", func(t *testing.T) {
		r := runCodex(t, codexLegacyCLI)
		t.Logf("codex (gpt-5.5, function tools) first tool call after %v", r.firstCall)
	})
}

// runCodex runs c for three packets.
func runCodex(t *testing.T, c realCLI) *realRun {
	t.Helper()
	return runRealCLI(t, leavesNothingRunning(t, c), 3)
}

// leavesNothingRunning is c with a check, once the app has stopped, that
// nothing the agent started is still running.
func leavesNothingRunning(t *testing.T, c realCLI) realCLI {
	t.Helper()
	var home string
	user := c.user
	c.user = func(t *testing.T, h string, model *standinmodel.Server) []string {
		home = h
		return user(t, h, model)
	}
	// Registered before runRealCLI's own clean-ups, so it runs after them:
	// after the app and its sessions have stopped.
	t.Cleanup(func() {
		if home != "" {
			waitNoProcessWithHome(t, home)
		}
	})
	return c
}

// waitNoProcessWithHome fails when a process whose environment has
// HOME=home (the agent, or anything it started, such as a codex
// app-server) is still running by the test's deadline. It reads /proc;
// without one it checks nothing.
func waitNoProcessWithHome(t *testing.T, home string) {
	t.Helper()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		return
	}
	want := []byte("\x00HOME=" + home + "\x00")
	var left []string
	if !eventually(t, func() bool {
		left = nil
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			env, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
				continue
			}
			cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
			left = append(left, filepath.Base(p)+": "+strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))))
		}
		return len(left) == 0
	}) {
		t.Errorf("processes of the agent's HOME still running after the app stopped:\n%s", strings.Join(left, "\n"))
	}
}

// In the person's own checkout (no worktree of Switchboard's) the trust
// is not Switchboard's to give: Codex asks, and asks the model nothing
// before a person answers.
func TestRealCLICodexOwnFolder(t *testing.T) {
	r := runRealCLI(t, leavesNothingRunning(t, codexCLI), 0, "--no-worktree")
	r.asksTrust(t, "Trust this folder?")
}
