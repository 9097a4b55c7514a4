//go:build unix

package e2e

import (
	"testing"

	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// geminiCLI is the person who installed Gemini CLI: they chose "Use Gemini
// API Key" on its first screen (here the key is fake and the base URL is
// the stand-in model) and registered Switchboard once at user scope with
// the very command the built-in profile's notes give. The folder trust is
// not theirs to give: Switchboard trusts the worktrees it made.
var geminiCLI = realCLI{
	profile: "gemini",
	user: func(t *testing.T, home string, model *standinmodel.Server) []string {
		t.Helper()
		env, err := standinmodel.GeminiHome(home, model, requireAgentCLIs(t))
		if err != nil {
			t.Fatal(err)
		}
		return env
	},
}

func TestRealCLIGemini(t *testing.T) {
	r := runRealCLI(t, geminiCLI, 3)
	t.Logf("figure: gemini first tool call after %v", r.firstCall)
}

// TestRealCLIGeminiOwnFolder: in the person's own checkout (no worktree of
// Switchboard's) the trust is not Switchboard's to give, so Gemini CLI asks,
// and reaches no model before a person answers.
func TestRealCLIGeminiOwnFolder(t *testing.T) {
	r := runRealCLI(t, geminiCLI, 0, "--no-worktree")
	r.asksTrust(t, "Do you trust the files in this folder?")
}
