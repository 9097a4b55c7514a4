//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor"
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
		env := []string{
			"GEMINI_API_KEY=stand-in-key",
			"GOOGLE_GEMINI_BASE_URL=" + model.URL,
		}
		// The answer to "How would you like to authenticate", as Gemini
		// CLI saves it.
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
			t.Fatal(err)
		}
		lcWrite(t, filepath.Join(home, ".gemini", "settings.json"),
			`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`+"\n")
		// The registration the profile's notes ask for, run as they
		// give it (a shell reads the single quotes).
		cmd := exec.Command("sh", "-c", geminiRegistration(t))
		cmd.Env = append(os.Environ(), "HOME="+home,
			"PATH="+requireAgentCLIs(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the profile's registration: %v\n%s", err, out)
		}
		return env
	},
}

// geminiRegistration is the gemini mcp add command in the built-in
// profile's notes.
func geminiRegistration(t *testing.T) string {
	t.Helper()
	for _, p := range supervisor.Builtins() {
		if p.ID != "gemini" {
			continue
		}
		i := strings.Index(p.Notes, "gemini mcp add ")
		j := strings.Index(p.Notes, " -s user")
		if i < 0 || j < i {
			t.Fatalf("the gemini profile's notes give no gemini mcp add ... -s user command: %s", p.Notes)
		}
		return p.Notes[i : j+len(" -s user")]
	}
	t.Fatal("no built-in gemini profile")
	return ""
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
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen := lastScreen(r.d, r.session)
		if strings.Contains(screen, "Do you trust the files in this folder?") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no trust question after 20 s in the person's own folder; the last screen:\n%s", screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if calls := r.model.Calls(); len(calls) != 0 {
		t.Errorf("the model was asked for tool calls before the folder was trusted: %v", calls)
	}
}
