package standinmodel

// The person's own setup of each agent CLI, pointed at the stand-in model:
// what they did once by hand (a login, first-run screens, the registration
// a profile's notes ask for), written into a throwaway HOME. The end-to-end
// tests (test/e2e) and the bench (bench/mcpbench) both play this person.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/supervisor"
)

// ClaudeAPIKey is the person's API key as the stand-in model sees it;
// Claude Code remembers an approved key by its last 20 characters.
const ClaudeAPIKey = "sk-ant-api03-standin-0123456789abcdefghijklmnopqrstuvwxyz"

// ClaudeHome is a person who uses Claude Code with an API key: they ran it
// once by hand, went through its first-run screens (theme, "use this API
// key?"), and left it. Their ~/.claude.json holds what those screens
// wrote; the folder-trust question is not answered anywhere, that is
// Switchboard's to spare. It returns the variables their desktop session
// sets.
func ClaudeHome(home string, model *Server) ([]string, error) {
	config := `{
  "numStartups": 1,
  "hasCompletedOnboarding": true,
  "lastOnboardingVersion": "2.1.332",
  "theme": "dark",
  "customApiKeyResponses": {
    "approved": ["` + ClaudeAPIKey[len(ClaudeAPIKey)-20:] + `"],
    "rejected": []
  },
  "hasSeenAutoDefaultNotice": true,
  "lastReleaseNotesSeen": "2.1.332"
}`
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(config), 0o600); err != nil {
		return nil, fmt.Errorf("claude's first-run config: %w", err)
	}
	return []string{
		"ANTHROPIC_BASE_URL=" + model.URL,
		"ANTHROPIC_API_KEY=" + ClaudeAPIKey,
		// Offline: no telemetry, error reports, update checks or
		// release notes fetched from Anthropic.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}, nil
}

// CodexHome is a person who installed Codex and signed in once: their
// ~/.codex/config.toml names a model provider (here the stand-in, as a
// custom provider with its key in the environment, the way a company
// gateway is set up) and then more (top-level keys), so with more empty
// Codex uses its default model. No folder is trusted by hand.
func CodexHome(home string, model *Server, more string) ([]string, error) {
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// supports_websockets = false: Codex's own models prefer a websocket;
	// the stand-in speaks HTTP with server-sent events only.
	// check_for_update_on_startup = false and analytics off: no request
	// leaves the machine.
	config := fmt.Sprintf(`model_provider = "standin"
check_for_update_on_startup = false
%s
[analytics]
enabled = false

[model_providers.standin]
name = "Stand-in model"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STANDIN_OPENAI_KEY"
supports_websockets = false
`, more, model.URL)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		return nil, fmt.Errorf("codex's config: %w", err)
	}
	return []string{"STANDIN_OPENAI_KEY=sk-standin"}, nil
}

// GeminiHome is the person who installed Gemini CLI: they chose "Use Gemini
// API Key" on its first screen (the key is fake, the base URL the stand-in
// model) and registered Switchboard once at user scope with the very
// command the built-in profile's notes give, run with the gemini command
// found in bin. The folder trust is not theirs to give.
func GeminiHome(home string, model *Server, bin string) ([]string, error) {
	env := []string{
		"GEMINI_API_KEY=stand-in-key",
		"GOOGLE_GEMINI_BASE_URL=" + model.URL,
	}
	// The answer to "How would you like to authenticate", as Gemini CLI
	// saves it.
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"),
		[]byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("gemini's settings: %w", err)
	}
	reg, err := GeminiRegistration()
	if err != nil {
		return nil, err
	}
	// Run as the notes give it: a shell reads the single quotes.
	cmd := exec.Command("sh", "-c", reg)
	cmd.Env = append(os.Environ(), "HOME="+home,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("the profile's registration: %w\n%s", err, out)
	}
	return env, nil
}

// GeminiRegistration is the gemini mcp add command in the built-in
// profile's notes.
func GeminiRegistration() (string, error) {
	for _, p := range supervisor.Builtins() {
		if p.ID != "gemini" {
			continue
		}
		i := strings.Index(p.Notes, "gemini mcp add ")
		j := strings.Index(p.Notes, " -s user")
		if i < 0 || j < i {
			return "", fmt.Errorf("the gemini profile's notes give no gemini mcp add ... -s user command: %s", p.Notes)
		}
		return p.Notes[i : j+len(" -s user")], nil
	}
	return "", errors.New("no built-in gemini profile")
}
