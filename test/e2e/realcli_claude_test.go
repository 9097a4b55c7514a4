//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// claudeAPIKey is the person's API key as the stand-in model sees it;
// Claude Code remembers an approved key by its last 20 characters.
const claudeAPIKey = "sk-ant-api03-standin-0123456789abcdefghijklmnopqrstuvwxyz"

// claudeCLI is a person who uses Claude Code with an API key: they ran it
// once by hand, went through its first-run screens (theme, "use this API
// key?"), and left it. Their ~/.claude.json holds what those screens
// wrote; the folder-trust question is not answered anywhere, that is
// Switchboard's to spare (trust_claude.go).
var claudeCLI = realCLI{
	profile: "claude",
	user: func(t *testing.T, home string, model *standinmodel.Server) []string {
		t.Helper()
		config := `{
  "numStartups": 1,
  "hasCompletedOnboarding": true,
  "lastOnboardingVersion": "2.1.332",
  "theme": "dark",
  "customApiKeyResponses": {
    "approved": ["` + claudeAPIKey[len(claudeAPIKey)-20:] + `"],
    "rejected": []
  },
  "hasSeenAutoDefaultNotice": true,
  "lastReleaseNotesSeen": "2.1.332"
}`
		if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{
			"ANTHROPIC_BASE_URL=" + model.URL,
			"ANTHROPIC_API_KEY=" + claudeAPIKey,
			// Offline: no telemetry, error reports, update checks or
			// release notes fetched from Anthropic.
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
		}
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
