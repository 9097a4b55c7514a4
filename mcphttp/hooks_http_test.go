package mcphttp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// supervisedSession makes a supervised session in repo with its own
// session token, as agent.start does.
func (f *fixture) supervisedSession(t *testing.T, repo string) (mcpserver.Principal, string) {
	t.Helper()
	id := store.NewID("ses")
	var grants []store.Grant
	for _, c := range store.AgentCapabilities() {
		grants = append(grants, store.Grant{Capability: c, Repositories: []string{repo}})
	}
	tok, raw := f.createToken(t, store.TokenSpec{Label: "agent " + id, Kind: store.KindSession, Grants: grants, SessionID: id})
	f.update(t, func(tx *store.Tx) error {
		_, err := tx.CreateSession(store.SessionSpec{ID: id, Kind: store.SessionSupervised, RepositoryID: repo, Profile: "claude", TokenKeyID: tok.KeyID})
		return err
	})
	return mcpserver.TokenPrincipal(tok), raw
}

// TestClaudeHookPath: the listener takes a hook with the session's own
// token as one audited session.signal call over the hook transport, and
// refuses the client token, a session's token for another session, the
// MCP transports (the method is hidden), events it does not know and
// sessions it does not supervise. (That a signal changes a live agent's
// status is app/daemon's TestClaudeHooksChangeStatus.)
func TestClaudeHookPath(t *testing.T) {
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	a, rawA := f.supervisedSession(t, repo.ID)
	b, _ := f.supervisedSession(t, repo.ID)
	client, rawClient := f.createClientToken(t)
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	defer srv.Close()

	post := func(event, token, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hooks/claude/"+event, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: content type %q; Claude Code takes JSON only", event, ct)
		}
		return resp.StatusCode, string(out)
	}

	note := `{"session_id":"c1","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`
	if code, body := post("Notification", rawA, note); code != http.StatusOK || strings.TrimSpace(body) != "{}" {
		t.Fatalf("Notification with the session's token: %d %s", code, body)
	}
	recs := f.audit(t)
	last := recs[len(recs)-1]
	if last.Method != "session.signal" || last.Transport != string(mcpserver.TransportHook) || last.Outcome != "ok" || last.SessionID != a.SessionID {
		t.Errorf("audit record %+v", last)
	}
	// A Notification that is no wait (a login that worked) records nothing.
	n := len(f.audit(t))
	if code, body := post("Notification", rawA, `{"hook_event_name":"Notification","message":"Login successful","notification_type":"auth_success"}`); code != http.StatusOK || strings.TrimSpace(body) != "{}" {
		t.Errorf("auth_success: %d %s", code, body)
	}
	if m := len(f.audit(t)); m != n {
		t.Errorf("auth_success made %d audited calls", m-n)
	}
	for _, ev := range []string{"Stop", "UserPromptSubmit", "PostToolUse"} {
		if code, body := post(ev, rawA, `{"hook_event_name":"`+ev+`"}`); code != http.StatusOK {
			t.Errorf("%s: %d %s", ev, code, body)
		}
	}
	// A PostToolUse hook carries the tool's output, however large: it is
	// not read.
	if code, body := post("PostToolUse", rawA, `{"tool_response":"`+strings.Repeat("x", 1<<20)+`"}`); code != http.StatusOK {
		t.Errorf("a large PostToolUse: %d %s", code, body)
	}

	for _, tt := range []struct {
		name, event, token, body string
		status                   int
	}{
		{"no token", "Stop", "", "{}", http.StatusUnauthorized},
		{"the client token", "Stop", rawClient, "{}", http.StatusForbidden},
		{"an unknown event", "SessionEnd", rawA, "{}", http.StatusBadRequest},
		{"a Notification that is no JSON", "Notification", rawA, "not json", http.StatusBadRequest},
		{"a huge Notification", "Notification", rawA, `{"message":"` + strings.Repeat("x", 100<<10) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, body := post(tt.event, tt.token, tt.body); code != tt.status || strings.Contains(body, rawA) {
				t.Errorf("%d %s; want %d", code, body, tt.status)
			}
		})
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/hooks/claude/Stop", nil)
	req.Header.Set("Authorization", "Bearer "+rawA)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", resp, err)
	}

	// Another session's token names this session: refused.
	args, _ := json.Marshal(mcpserver.SignalArgs{SessionID: a.SessionID, Event: "Stop"})
	wantCode(t, f.reg.Invoke(t.Context(), b, mcpserver.TransportHook, string(mcpserver.MethodSessionSignal), args), store.CodeCapabilityScopeMismatch)
	// The client token names a supervised session: not its own.
	wantCode(t, f.reg.Invoke(t.Context(), mcpserver.TokenPrincipal(client), mcpserver.TransportHook, string(mcpserver.MethodSessionSignal), args), store.CodeCapabilityScopeMismatch)
	// Over MCP the method is hidden, even with the right token.
	wantCode(t, f.reg.Invoke(t.Context(), a, mcpserver.TransportMCP, string(mcpserver.MethodSessionSignal), args), store.CodeToolHidden)
	// A session the client token opened itself is no supervised agent.
	opened := f.invoke(mcpserver.TokenPrincipal(client), mcpserver.TransportMCP, "session.report", `{"kind":"ready","repository_id":"`+repo.ID+`"}`)
	if opened.Err != nil {
		t.Fatal(opened.Err)
	}
	ext, _ := json.Marshal(mcpserver.SignalArgs{SessionID: opened.Value.(mcpserver.ReportResult).SessionID, Event: "Stop"})
	wantCode(t, f.reg.Invoke(t.Context(), mcpserver.TokenPrincipal(client), mcpserver.TransportHook, string(mcpserver.MethodSessionSignal), ext), store.CodeInvalidState)
	// Text beyond the bound is refused (the hook path clips it first).
	long, _ := json.Marshal(mcpserver.SignalArgs{Event: "Notification", Text: strings.Repeat("x", mcpserver.MaxSignalText+1)})
	wantCode(t, f.reg.Invoke(t.Context(), a, mcpserver.TransportHook, string(mcpserver.MethodSessionSignal), long), store.CodeInvalidArgument)
}
