package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// signalAgents starts a daemon serving HTTP and n agents of a profile that
// asks for Claude Code's hooks (a shell standing in for claude: it prints
// one line and waits, so its screen says "idle"), and returns the daemon,
// the sessions and their raw session tokens.
func signalAgents(t *testing.T, n int) (*running, []*supervisor.Session, []string) {
	t.Helper()
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	reg := d.Registry()
	ctx := context.Background()
	repo, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	prof := profile.Profile{ID: "hooked", Name: "Hooked", Command: "/bin/sh", Prompt: profile.PromptNone, Hooks: profile.HooksClaude,
		Args: []string{"-c", "echo READY; exec sleep 600", "sh"}}
	if _, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: prof}); err != nil {
		t.Fatal(err)
	}
	var sessions []*supervisor.Session
	var tokens []string
	for range n {
		started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
			mcpserver.AgentStartArgs{Profile: "hooked", RepositoryID: repo.Repository.ID, NoWorktree: true})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := d.Agents().Get(started.SessionID)
		if !ok {
			t.Fatal("the supervisor does not know the session")
		}
		waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "READY") })
		raw, err := os.ReadFile(filepath.Join(d.cfg.Paths.Runtime, "sessions", s.ID()+".token"))
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
		tokens = append(tokens, string(raw))
	}
	for _, s := range sessions {
		// The screen's own word once it has been still for IdleAfter (2 s).
		waitFor(t, func() bool { return s.Status() == supervisor.StatusIdle })
	}
	return d, sessions, tokens
}

// hookURL reads the URL the session's settings file gives Claude Code for
// event.
func hookURL(t *testing.T, d *running, s *supervisor.Session, event string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(d.cfg.Paths.Runtime, "sessions", s.ID()+".claude-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				URL string `json:"url"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &settings); err != nil || len(settings.Hooks[event]) == 0 {
		t.Fatalf("settings %s: %v", raw, err)
	}
	return settings.Hooks[event][0].Hooks[0].URL
}

// postHook sends a hook as Claude Code does: its input JSON, the bearer
// token from its environment.
func postHook(t *testing.T, url, token, body string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// agentInfo is the session as agent.list shows it.
func agentInfo(t *testing.T, d *running, id string) supervisor.Info {
	t.Helper()
	list, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentList, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list.Agents {
		if a.SessionID == id {
			return a.Info
		}
	}
	t.Fatalf("agent.list lacks %s", id)
	return supervisor.Info{}
}

// TestClaudeHooksChangeStatus posts Claude Code's hooks through the real
// HTTP endpoint, to the URLs the session's settings file names, with the
// session's token: Notification makes the agent wait for the person (its
// message the notification), UserPromptSubmit makes it work, Stop idle,
// whatever its screen looks like; agent.list shows status and signal. The
// client token and another session's token change nothing of it.
func TestClaudeHooksChangeStatus(t *testing.T) {
	d, ss, tokens := signalAgents(t, 2)
	s, other := ss[0], ss[1]
	note := `{"session_id":"4f1c","hook_event_name":"Notification","message":"Claude needs your permission to use Bash\u001b[31m","notification_type":"permission_prompt"}`
	if code := postHook(t, hookURL(t, d, s, "Notification"), tokens[0], note); code != http.StatusOK {
		t.Fatalf("Notification: %d", code)
	}
	info := agentInfo(t, d, s.ID())
	if info.Status != supervisor.StatusNeedsInput || info.Signal == nil || info.Signal.State != supervisor.SignalWaiting ||
		info.Signal.Source != supervisor.SourceHook || info.Signal.Event != "Notification" {
		t.Fatalf("after Notification: %+v, signal %+v", info, info.Signal)
	}
	if a := info.Attention; a == nil || a.Source != supervisor.SourceHook || a.Seq != 1 || a.Body != "Claude needs your permission to use Bash [31m" {
		t.Errorf("attention %+v; want the message, sanitized, as the first wait", a)
	}

	// The client token and the other session's token: refused, or about
	// their own session only.
	if code := postHook(t, hookURL(t, d, s, "Stop"), d.clientToken(), `{}`); code != http.StatusForbidden {
		t.Errorf("the client token: %d, want 403", code)
	}
	if code := postHook(t, hookURL(t, d, s, "Stop"), tokens[1], `{}`); code != http.StatusOK {
		t.Errorf("the other session's Stop: %d", code)
	}
	if st := s.Status(); st != supervisor.StatusNeedsInput {
		t.Errorf("status %s after other tokens' hooks; want still needs_input", st)
	}
	if sig := other.LastSignal(); sig == nil || sig.State != supervisor.SignalIdle {
		t.Errorf("the other session's signal %+v", sig)
	}

	for _, step := range []struct {
		event string
		want  supervisor.Status
	}{
		{"UserPromptSubmit", supervisor.StatusRunning},
		{"Stop", supervisor.StatusIdle},
		{"PostToolUse", supervisor.StatusRunning},
	} {
		if code := postHook(t, hookURL(t, d, s, step.event), tokens[0], `{"hook_event_name":"`+step.event+`"}`); code != http.StatusOK {
			t.Fatalf("%s: %d", step.event, code)
		}
		if info := agentInfo(t, d, s.ID()); info.Status != step.want || info.Attention != nil {
			t.Errorf("after %s: status %s, attention %+v; want %s", step.event, info.Status, info.Attention, step.want)
		}
	}

	// Each hook is an audited call of its session, over the hook
	// transport; the refused one too is on record, without its token.
	var recs []store.AuditRecord
	d.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Method: string(mcpserver.MethodSessionSignal), Limit: 100})
		return err
	})
	mine := 0
	for _, r := range recs {
		if r.Transport != string(mcpserver.TransportHook) {
			t.Errorf("audit %+v", r)
		}
		if r.SessionID == s.ID() && r.Outcome == "ok" {
			mine++
		}
	}
	if mine != 4 {
		t.Errorf("%d audited signals of the session; want 4", mine)
	}
}

// TestSessionReportChangesStatus: a supervised agent's session_report is
// its signal too: a question makes it wait for the person until the
// person answers in Switchboard, a heartbeat makes it work, whatever its
// still screen says.
func TestSessionReportChangesStatus(t *testing.T) {
	d, ss, tokens := signalAgents(t, 1)
	s := ss[0]
	report := func(kind string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"session_report","arguments":{"kind":"` + kind + `","text":"Which branch?"}}}`
		resp, b := postMCP(t, d.Endpoint(), tokens[0], body)
		var out struct {
			Result struct {
				StructuredContent struct {
					OK     bool                   `json:"ok"`
					Result mcpserver.ReportResult `json:"result"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK || !out.Result.StructuredContent.OK {
			t.Fatalf("session_report %s: %d %s", kind, resp.StatusCode, b)
		}
		return out.Result.StructuredContent.Result.QuestionID
	}

	q := report("question")
	info := agentInfo(t, d, s.ID())
	if info.Status != supervisor.StatusNeedsInput || info.Signal == nil || info.Signal.Source != supervisor.SourceReport || info.Signal.Event != "question" {
		t.Fatalf("after a question: %+v, signal %+v", info, info.Signal)
	}
	if info.Attention != nil {
		t.Errorf("attention %+v: the question is announced as a question, not twice", info.Attention)
	}
	if _, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodSessionAnswer,
		mcpserver.AnswerArgs{QuestionID: q, Answer: "main"}); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st != supervisor.StatusIdle {
		t.Errorf("status %s after the answer; want the screen's idle", st)
	}
	report("heartbeat")
	if info := agentInfo(t, d, s.ID()); info.Status != supervisor.StatusRunning || info.Signal.Event != "heartbeat" {
		t.Errorf("after a heartbeat: %+v", info)
	}
}
