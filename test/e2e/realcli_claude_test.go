//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// claudeCLI is a person who uses Claude Code with an API key (see
// standinmodel.ClaudeHome); the folder-trust question is not answered
// anywhere, that is Switchboard's to spare (trust_claude.go).
var claudeCLI = realCLI{
	profile: "claude",
	user: func(t *testing.T, home string, model *standinmodel.Server) []string {
		t.Helper()
		env, err := standinmodel.ClaudeHome(home, model)
		if err != nil {
			t.Fatal(err)
		}
		return env
	},
}

// TestRealCLIClaude: Claude Code, started by the built-in profile in a
// worktree of its own, claims, acks, publishes and completes three
// packets with no one at the keyboard.
func TestRealCLIClaude(t *testing.T) {
	r := runRealCLI(t, claudeCLI, 3)
	t.Logf("figure: claude first tool call after %v", r.firstCall)

	// Switchboard trusted the session's worktree and nothing else: not
	// the person's own repository folder.
	b, err := os.ReadFile(filepath.Join(r.d.home, ".claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Projects map[string]struct {
			Trusted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("~/.claude.json: %v", err)
	}
	wt := filepath.Join(r.d.data, "worktrees", r.repo, r.session)
	real, _ := filepath.EvalSymlinks(wt) // macOS: /private/var for /var
	if !cfg.Projects[wt].Trusted {
		t.Errorf("the worktree %s is not trusted", wt)
	}
	for dir, p := range cfg.Projects {
		if p.Trusted && dir != wt && dir != real {
			t.Errorf("%s is trusted too; only the worktree %s should be", dir, wt)
		}
	}
}
