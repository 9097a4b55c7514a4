package supervisor

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/profile"
)

// Claude Code's hooks: the CLI says itself when it waits for the person
// (Notification), when a turn starts (UserPromptSubmit) or goes on (a tool
// ran: PostToolUse) and when it ends (Stop). Claude Code 2.1.332 has HTTP
// hooks: it POSTs the hook's input JSON to a URL, with headers whose
// $VARIABLES it fills from its environment, but only those the hook lists
// in allowedEnvVars, and to loopback addresses too. So the session's
// settings file names the variable, never the token: the token reaches
// Claude Code in SWITCHBOARD_MCP_TOKEN, as Codex and Gemini CLI get it.

// ClaudeHookPath is where the MCP listener takes Claude Code's hooks, the
// event's name following it: POST /hooks/claude/Notification, with the
// session's token as bearer token.
const ClaudeHookPath = "/hooks/claude/"

// claudeHookEvents are the hook events a session's settings subscribe to.
var claudeHookEvents = []string{"Notification", "Stop", "UserPromptSubmit", "PostToolUse"}

// claudeHookTimeout is how long Claude Code waits for Switchboard, in
// seconds: a hook blocks the agent while it runs, and the call is a
// loopback write of a few milliseconds.
const claudeHookTimeout = 5

// tokenVar is the variable the hooks' Authorization header names.
const tokenVar = "SWITCHBOARD_MCP_TOKEN"

// addHooks gives a profile that asks for them (profile.HooksClaude) the
// CLI's own state signals: a per-session settings file (0600, removed with
// the session) passed with --settings.
func addHooks(sv *Supervisor, spec LaunchSpec, _ map[string]string, x *launchExtras) error {
	switch spec.Profile.Hooks {
	case "":
		return nil
	case profile.HooksClaude:
	default:
		return fmt.Errorf("%s: unknown hooks %q", spec.Profile.ID, spec.Profile.Hooks)
	}
	settings, err := ClaudeHookSettings(spec.Endpoint)
	if err != nil {
		return err
	}
	path := hooksFile(sv.cfg.RuntimeDir, spec.SessionID)
	if err := writePrivate(path, settings); err != nil {
		return err
	}
	x.Files = append(x.Files, path)
	x.Args = append(x.Args, "--settings", path)
	if !spec.Profile.TokenEnv {
		x.Env = append(x.Env, tokenVar+"="+spec.Token)
	}
	return nil
}

// ClaudeHookSettings is a Claude Code settings document whose hooks POST
// each of claudeHookEvents to the listener of endpoint (the MCP URL) with
// the bearer token read from $SWITCHBOARD_MCP_TOKEN.
func ClaudeHookSettings(endpoint string) ([]byte, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("hooks need the MCP endpoint's URL, not %q", endpoint)
	}
	type hook struct {
		Type           string            `json:"type"`
		URL            string            `json:"url"`
		Headers        map[string]string `json:"headers"`
		AllowedEnvVars []string          `json:"allowedEnvVars"`
		Timeout        int               `json:"timeout"`
	}
	type matcher struct {
		Hooks []hook `json:"hooks"`
	}
	hooks := map[string][]matcher{}
	for _, ev := range claudeHookEvents {
		at := url.URL{Scheme: u.Scheme, Host: u.Host, Path: ClaudeHookPath + ev}
		hooks[ev] = []matcher{{Hooks: []hook{{
			Type: "http", URL: at.String(),
			Headers:        map[string]string{"Authorization": "Bearer ${" + tokenVar + "}"},
			AllowedEnvVars: []string{tokenVar},
			Timeout:        claudeHookTimeout,
		}}}}
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode hook settings: %w", err)
	}
	return append(b, '\n'), nil
}

func hooksFile(runtimeDir, sessionID string) string {
	return filepath.Join(sessionsDir(runtimeDir), sessionID+".claude-settings.json")
}
