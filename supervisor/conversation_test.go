package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
)

// The whole command line of each built-in at a start and at a resume: the
// conversation's arguments in front of the prompt, a subcommand in front
// of everything.
func TestConversationArgs(t *testing.T) {
	const (
		conv     = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
		endpoint = "http://127.0.0.1:43117/mcp"
		config   = "/run/sb/ses_t.mcp.json"
	)
	codexTOML := `mcp_servers.switchboard={url="` + endpoint + `",` +
		`bearer_token_env_var="SWITCHBOARD_MCP_TOKEN",default_tools_approval_mode="approve"}`
	claude := []string{"--mcp-config", config, "--strict-mcp-config", "--allowedTools=mcp__switchboard"}
	for _, tc := range []struct {
		id     string
		conv   string
		resume bool
		want   []string // before the prompt, which comes last
		err    string
	}{
		{"claude", conv, false, slices.Concat(claude, []string{"--session-id", conv}), ""},
		{"claude", conv, true, slices.Concat(claude, []string{"--resume", conv}), ""},
		{"claude", "", false, nil, "none was made"},
		{"codex", "", false, []string{"--disable", "daemon_auto_start", "-c", codexTOML}, ""},
		{"codex", conv, true, []string{"resume", conv, "--disable", "daemon_auto_start", "-c", codexTOML}, ""},
		{"codex", "", true, nil, "no conversation id"},
		{"gemini", conv, false, []string{"--allowed-mcp-server-names", "switchboard", "--session-id", conv, "-i"}, ""},
		{"gemini", conv, true, []string{"--allowed-mcp-server-names", "switchboard", "--resume", conv, "-i"}, ""},
		{"aider", "", false, nil, ""},
		{"aider", conv, true, nil, "cannot resume"},
		{"shell", conv, true, nil, "cannot resume"},
	} {
		p := builtin(t, tc.id)
		p.Command = "sh" // on PATH, for commandLine
		spec := LaunchSpec{SessionID: "ses_t", RepositoryID: "repo_t", Dir: "/wt/ses_t", Profile: p, Endpoint: endpoint,
			Token: "sbt_secret", Prompt: "go on", ConversationID: tc.conv, Resume: tc.resume}
		_, delivery := firstPrompt(spec)
		vars := sessionVars(spec, delivery, "/run/sb/ses_t.token", config)
		var x launchExtras
		err := addConversation(nil, spec, vars, &x)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s (%q, resume %v): %v, want an error saying %q", tc.id, tc.conv, tc.resume, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%q, resume %v): %v", tc.id, tc.conv, tc.resume, err)
			continue
		}
		_, got, err := commandLine(p, vars, x)
		if err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if delivery == profile.PromptArgument {
			want = append(slices.Clone(want), "go on")
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s (%q, resume %v): args\n%q\nwant\n%q", tc.id, tc.conv, tc.resume, got, want)
		}
	}
}

// Codex's id is read from the rollout file of the session's folder, not
// from another folder's, nor from one written before the session started.
func TestFindCodexConversation(t *testing.T) {
	home := t.TempDir()
	now := time.Now()
	day := filepath.Join(home, "sessions", filepath.FromSlash(now.Format("2006/01/02")))
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	write := func(name, id, cwd string, at time.Time) {
		t.Helper()
		line := `{"timestamp":"x","type":"session_meta","payload":{"id":"` + id + `","cwd":"` + cwd + `","base_instructions":{"text":"` + strings.Repeat("x", 100<<10) + `"}}}` + "\n"
		f := filepath.Join(day, name)
		if err := os.WriteFile(f, []byte(line+`{"type":"response_item"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, at, at); err != nil {
			t.Fatal(err)
		}
	}
	since := now.Add(-time.Minute)
	if id, err := findCodexConversation(home, wt, since); id != "" || err != nil {
		t.Fatalf("nothing written yet: %q, %v", id, err)
	}
	write("rollout-a-old.jsonl", "old", wt, since.Add(-time.Hour))
	write("rollout-b-other.jsonl", "other", t.TempDir(), now)
	if err := os.WriteFile(filepath.Join(day, "rollout-c-partial.jsonl"), []byte(`{"type":"session_meta","payl`), 0o600); err != nil {
		t.Fatal(err)
	}
	if id, _ := findCodexConversation(home, wt, since); id != "" {
		t.Fatalf("found %q among other folders' and older rollouts", id)
	}
	write("rollout-d-mine.jsonl", "019a-mine", wt, now)
	if id, err := findCodexConversation(home, wt, since); id != "019a-mine" || err != nil {
		t.Errorf("found %q, %v; want 019a-mine", id, err)
	}
	if got := codexHome([]string{"HOME=/h", "CODEX_HOME=/c"}); got != "/c" {
		t.Errorf("codexHome with CODEX_HOME: %s", got)
	}
	if got := codexHome([]string{"HOME=/h"}); got != "/h/.codex" {
		t.Errorf("codexHome: %s", got)
	}
}

func TestKeepRecording(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "ses_x.cast")
	if err := keepRecording(rec); err != nil {
		t.Fatalf("no recording yet: %v", err)
	}
	for i := range 2 {
		if err := os.WriteFile(rec, []byte{byte('a' + i)}, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := keepRecording(rec); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"ses_x.1.cast", "ses_x.2.cast"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != string(rune('a'+i)) {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("the recording is still there: %v", err)
	}
}
