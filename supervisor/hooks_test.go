package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
)

// TestHooksSettingsFile starts a session of a profile that asks for
// Claude Code's hooks (a shell standing in for claude, printing what it
// got): the settings file is passed with --settings, is owner-only, names
// the token's variable and never the token, sends every event to the
// listener of the session's endpoint, and is gone once the session ends.
// The token itself reaches the agent in its environment.
func TestHooksSettingsFile(t *testing.T) {
	sv, _, dir := newTestSupervisor(t, os.Environ())
	token := "sbt_" + strings.Repeat("cd", 8) + "_" + strings.Repeat("y", 43)
	prof := profile.Profile{ID: "hooked", Name: "Hooked", Command: "/bin/sh", Prompt: profile.PromptNone, Hooks: profile.HooksClaude,
		Args: []string{"-c", `printf 'FLAG=%s FILE=%s TOKEN=%s\n' "$1" "$2" "${SWITCHBOARD_MCP_TOKEN:+set}"; read x`, "sh"}}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_hooks", Dir: t.TempDir(), Profile: prof,
		Endpoint: "http://127.0.0.1:4567/mcp", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "run", "sessions", "ses_hooks.claude-settings.json")
	waitScreen(t, s, "FLAG=--settings FILE="+file+" TOKEN=set")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file: %v, %v; want 0600", fi, err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), token) || strings.Contains(string(raw), "sbt_") {
		t.Fatalf("the settings file holds the token:\n%s", raw)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type           string            `json:"type"`
				URL            string            `json:"url"`
				Headers        map[string]string `json:"headers"`
				AllowedEnvVars []string          `json:"allowedEnvVars"`
				Timeout        int               `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &settings); err != nil {
		t.Fatalf("settings: %v\n%s", err, raw)
	}
	for _, ev := range []string{"Notification", "Stop", "UserPromptSubmit", "PostToolUse"} {
		m := settings.Hooks[ev]
		if len(m) != 1 || len(m[0].Hooks) != 1 {
			t.Errorf("%s: %+v", ev, m)
			continue
		}
		h := m[0].Hooks[0]
		if h.Type != "http" || h.URL != "http://127.0.0.1:4567/hooks/claude/"+ev ||
			h.Headers["Authorization"] != "Bearer ${SWITCHBOARD_MCP_TOKEN}" ||
			!slices.Equal(h.AllowedEnvVars, []string{"SWITCHBOARD_MCP_TOKEN"}) || h.Timeout <= 0 || h.Timeout > 10 {
			t.Errorf("%s hook %+v", ev, h)
		}
	}
	if !slices.Contains(SessionFiles(filepath.Join(dir, "run"), "ses_hooks"), file) {
		t.Error("SessionFiles does not name the settings file: a crash would leave it")
	}

	s.Input([]byte("\r"))
	waitDone(t, s)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("settings file after the end: %v", err)
	}
}

// TestAddHooks: only a profile that asks gets hooks, and a session whose
// endpoint is no URL is refused rather than given hooks that go nowhere.
func TestAddHooks(t *testing.T) {
	sv := New(Config{RuntimeDir: t.TempDir()})
	os.MkdirAll(sessionsDir(sv.cfg.RuntimeDir), 0o700)
	for _, tt := range []struct {
		name, hooks, endpoint string
		args                  int
		env                   int
		wantErr               bool
	}{
		{"none", "", "http://127.0.0.1:1/mcp", 0, 0, false},
		{"claude", profile.HooksClaude, "http://127.0.0.1:1/mcp", 2, 1, false},
		{"claude with the token already in the environment", profile.HooksClaude, "http://127.0.0.1:1/mcp", 2, 0, false},
		{"no endpoint", profile.HooksClaude, "", 0, 0, true},
		{"unknown", "vim", "http://127.0.0.1:1/mcp", 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var x launchExtras
			p := profile.Profile{ID: "p", Hooks: tt.hooks, TokenEnv: strings.Contains(tt.name, "already")}
			err := addHooks(sv, LaunchSpec{SessionID: "ses_" + strings.ReplaceAll(tt.name, " ", "_"), Profile: p, Endpoint: tt.endpoint, Token: "sbt_x"}, nil, &x)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v", err)
			}
			if len(x.Args) != tt.args || len(x.Env) != tt.env || len(x.Files) != tt.args/2 {
				t.Errorf("extras %+v", x)
			}
			for _, f := range x.Files {
				os.Remove(f)
			}
		})
	}
}
