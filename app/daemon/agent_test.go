package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// buildStandin builds the supervisor's stand-in agent.
func buildStandin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "standin")
	cmd := exec.Command("go", "build", "-o", bin, "../../supervisor/testdata/standin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build standin: %v\n%s", err, out)
	}
	return bin
}

// An agent started through the registry gets a session token scoped to its
// repository, calls the endpoint with it, and at its end the token is
// revoked and its lease released. Quitting the app stops the agents.
func TestAgentThroughTheRegistry(t *testing.T) {
	bin := buildStandin(t)
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	reg := d.Registry()
	call := func(method string, args any) mcpserver.Result {
		t.Helper()
		b, _ := json.Marshal(args)
		res := reg.Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, method, b)
		if res.Err != nil {
			t.Fatalf("%s: %v", method, res.Err)
		}
		return res
	}
	repo := call("repository.register", map[string]any{"path": t.TempDir()}).Value.(mcpserver.RepositoryRegistered).Repository
	other := call("repository.register", map[string]any{"path": t.TempDir()}).Value.(mcpserver.RepositoryRegistered).Repository
	call("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "standin", Name: "Stand-in", Command: bin, Args: []string{"agent"}, Prompt: profile.PromptTyped}})
	profiles := call("profile.list", struct{}{}).Value.(mcpserver.ProfileList).Profiles
	byID := map[string]bool{}
	for _, p := range profiles {
		byID[p.ID] = p.Available
	}
	if !byID["standin"] || !byID["shell"] {
		t.Errorf("profiles %v: the stand-in and the shell should be available", byID)
	}
	if _, listed := byID["claude"]; !listed {
		t.Errorf("an uninstalled built-in is hidden instead of listed unavailable")
	}
	// A profile whose command is missing is refused before anything is made.
	call("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "ghost", Name: "Ghost", Command: "switchboard-no-such-agent", Prompt: profile.PromptNone}})
	b, _ := json.Marshal(mcpserver.AgentStartArgs{Profile: "ghost", RepositoryID: repo.ID})
	if res := reg.Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "agent.start", b); store.CodeOf(res.Err) != store.CodeAgentUnavailable {
		t.Errorf("starting an uninstalled profile: %v, want agent_unavailable", res.Err)
	}
	if n := len(call("session.list", store.SessionFilter{}).Value.(mcpserver.SessionListResult).Sessions); n != 0 {
		t.Errorf("a refused start left %d sessions", n)
	}

	started := call("agent.start", mcpserver.AgentStartArgs{Profile: "standin", RepositoryID: repo.ID, Prompt: "begin"}).Value.(mcpserver.AgentStarted)
	if started.PID == 0 || !strings.HasPrefix(started.SessionID, "ses_") {
		t.Fatalf("agent.start = %+v", started)
	}
	s, ok := d.Agents().Get(started.SessionID)
	if !ok {
		t.Fatal("the supervisor does not know the session")
	}
	waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "GOT begin") })
	screen := s.Terminal().Text()
	if !strings.Contains(screen, "MCP=ok") || !strings.Contains(screen, "SWITCHBOARD_REPOSITORY_ID="+repo.ID) {
		t.Fatalf("the agent could not use its token:\n%s", screen)
	}

	var ses store.Session
	var tok store.Token
	d.db.View(context.Background(), func(tx *store.Tx) error {
		ses, _ = tx.Session(started.SessionID)
		tok, _, _ = tx.Token(ses.TokenKeyID)
		return nil
	})
	if ses.State != store.SessionRunning || ses.PID != started.PID || ses.ProcStart == 0 {
		t.Errorf("session record %+v", ses)
	}
	if tok.Kind != store.KindSession || tok.SessionID != ses.ID {
		t.Errorf("token %+v is not the session's own", tok)
	}
	for _, g := range tok.Grants {
		if len(g.Repositories) != 1 || g.Repositories[0] != repo.ID || g.Capability == store.CapAdmin || g.Capability == store.CapWorkAuthor {
			t.Errorf("grant %+v reaches beyond the repository's agent capabilities", g)
		}
	}
	raw, err := os.ReadFile(filepath.Join(d.cfg.Paths.Runtime, "sessions", ses.ID+".token"))
	if err != nil {
		t.Fatal(err)
	}
	// The token works for its repository and not for another one.
	p := mcpserver.Principal{KeyID: tok.KeyID, SessionID: ses.ID}
	if err := d.db.View(context.Background(), func(tx *store.Tx) error { _, err := tx.Authenticate(string(raw)); return err }); err != nil {
		t.Fatalf("the token file does not hold a valid token: %v", err)
	}
	wb, _ := json.Marshal(map[string]any{"repository_id": other.ID, "session_id": ses.ID, "wait_seconds": 1})
	if res := reg.Invoke(context.Background(), p, mcpserver.TransportMCP, "work.await_packet", wb); store.CodeOf(res.Err) != store.CodeCapabilityScopeMismatch {
		t.Errorf("claim in another repository: %v, want capability_scope_mismatch", res.Err)
	}
	// A claimed packet goes back to the queue when the agent ends.
	pkt := call("work.create", map[string]any{"repository_id": repo.ID, "title": "t"}).Value.(mcpserver.PacketResult).Packet
	cb, _ := json.Marshal(map[string]any{"repository_id": repo.ID, "session_id": ses.ID})
	if res := reg.Invoke(context.Background(), p, mcpserver.TransportMCP, "work.await_packet", cb); res.Err != nil {
		t.Fatal(res.Err)
	}

	call("agent.input", mcpserver.AgentInputArgs{SessionID: ses.ID, Data: "typed\r"})
	waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "GOT typed") })
	call("agent.resize", mcpserver.AgentResizeArgs{SessionID: ses.ID, Cols: 100, Rows: 30})
	if c, r := s.Terminal().Size(); c != 100 || r != 30 {
		t.Errorf("size after resize %dx%d", c, r)
	}
	stopped := call("agent.stop", mcpserver.AgentStopArgs{SessionID: ses.ID}).Value.(mcpserver.AgentStopped)
	if stopped.Exit.Reason != "stopped" {
		t.Errorf("agent.stop = %+v", stopped)
	}
	d.db.View(context.Background(), func(tx *store.Tx) error {
		ses, _ = tx.Session(ses.ID)
		tok, _, _ = tx.Token(ses.TokenKeyID)
		got, _ := tx.Packet(pkt.ID)
		if got.State != store.PacketQueued {
			t.Errorf("packet %s after the agent ended, want queued", got.State)
		}
		return nil
	})
	if ses.State != store.SessionEnded || tok.RevokedAt == nil {
		t.Errorf("after stop: session %s, token revoked at %v", ses.State, tok.RevokedAt)
	}
	if _, err := os.Stat(filepath.Join(d.cfg.Paths.Runtime, "sessions", ses.ID+".token")); !os.IsNotExist(err) {
		t.Errorf("token file left: %v", err)
	}

	// Quitting stops every agent and records their ends.
	second := call("agent.start", mcpserver.AgentStartArgs{Profile: "standin", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
	d.stop()
	if processAlive(second.PID) {
		t.Errorf("agent %d still runs after the app quit", second.PID)
	}
}

// waitFor is waitUntil for a condition its caller's line names.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	waitUntil(t, "the condition", cond)
}

// The session views the GUI reads: lists, details with reports and open
// questions.
func TestSessionViews(t *testing.T) {
	d := start(t, Config{Paths: newPaths(t), Listen: mcpserver.ListenAddr{Off: true}, Keyring: keyring.NewMemory()})
	reg := d.Registry()
	call := func(method string, args any) mcpserver.Result {
		t.Helper()
		b, _ := json.Marshal(args)
		res := reg.Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, method, b)
		if res.Err != nil {
			t.Fatalf("%s: %v", method, res.Err)
		}
		return res
	}
	repo := call("repository.register", map[string]any{"path": t.TempDir()}).Value.(mcpserver.RepositoryRegistered).Repository
	ses := call("session.report", map[string]any{"kind": "ready", "repository_id": repo.ID, "text": "hello"}).Value.(mcpserver.ReportResult).SessionID
	for i := range 5 {
		call("session.report", map[string]any{"kind": "heartbeat", "session_id": ses, "text": fmt.Sprint("beat ", i)})
	}
	q := call("session.report", map[string]any{"kind": "question", "session_id": ses, "text": "which branch?"}).Value.(mcpserver.ReportResult).QuestionID

	list := call("session.list", map[string]any{"state": "running"}).Value.(mcpserver.SessionListResult).Sessions
	if len(list) != 1 || list[0].ID != ses {
		t.Fatalf("session.list = %+v", list)
	}
	det := call("session.get", mcpserver.SessionGetArgs{SessionID: ses, Reports: 3}).Value.(mcpserver.SessionDetail)
	if len(det.Reports) != 3 || det.Reports[2].Kind != store.ReportQuestion || det.Reports[0].Text != "beat 3" {
		t.Errorf("session.get reports = %+v, want the newest three, oldest first", det.Reports)
	}
	if len(det.Questions) != 1 || det.Questions[0].ID != q || det.LastSeq == 0 {
		t.Errorf("session.get questions %+v, last seq %d", det.Questions, det.LastSeq)
	}
	qs := call("question.list", struct{}{}).Value.(mcpserver.QuestionListResult).Questions
	if len(qs) != 1 || qs[0].Text != "which branch?" {
		t.Errorf("question.list = %+v", qs)
	}
	call("session.answer", mcpserver.AnswerArgs{QuestionID: q, Answer: "main"})
	if qs := call("question.list", struct{}{}).Value.(mcpserver.QuestionListResult).Questions; len(qs) != 0 {
		t.Errorf("answered question still listed: %+v", qs)
	}
}
