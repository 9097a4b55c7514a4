package app

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// A session that ended with the app is listed "can resume" and shows
// Resume; a tap starts its agent again on its conversation, in its
// worktree, and the window shows its live terminal.
func TestSessionsResume(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := &gui{app: a, core: newWorktreeCore(t, &fakeBackend{endpoint: testEndpoint, token: testToken}), log: log, quit: func() {}}
	ctx := context.Background()
	reg := g.core.Registry()
	repoDir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := exec.Command("git", append([]string{"-C", repoDir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir, Name: "demo"})
	mustDo(t, err)
	_, err = invoke(g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
		ID: "talker", Name: "Talker", Command: "/bin/sh", Args: []string{"-c", `echo "args: $*"; exec sleep 600`, "sh", "{prompt}"},
		Prompt:       profile.PromptArgument,
		Conversation: &profile.Conversation{StartArgs: []string{"--session-id={conversation_id}"}, ResumeArgs: []string{"--resume={conversation_id}"}},
	}})
	mustDo(t, err)
	started, err := invoke(g, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "talker", RepositoryID: repo.Repository.ID, Prompt: "go"})
	mustDo(t, err)
	// The app went away with it running: what a quit records.
	ended, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, mcpserver.MethodSessionEnd,
		mcpserver.SessionEndArgs{SessionID: started.SessionID, Reason: "stopped", WithApp: true})
	mustDo(t, err)
	conv := ended.Session.ConversationID
	_, err = invoke(g, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: started.SessionID, Kill: true})
	mustDo(t, err)

	g.showSessions(started.SessionID)
	w := g.sessions
	defer onUI(w.win.Close)
	if got := w.badge(w.sessions[0]); got != badgeResumable {
		t.Errorf("the session's badge is %q, want %q", got, badgeResumable)
	}
	waitUntil(t, "Resume shown", func() bool { return w.resume.Visible() })
	onUI(func() { test.Tap(w.resume) })
	waitUntil(t, "the resumed agent's terminal", func() bool {
		agent, ok := g.core.Agents().Get(started.SessionID)
		return ok && agent.Exit() == nil && strings.Contains(agent.Terminal().Text(), "args: --resume="+conv+" ")
	})
	waitUntil(t, "the live session shown, Resume hidden", func() bool {
		return w.replay == nil && !w.resume.Visible() && !w.stop.Disabled()
	})
}

// newWorktreeCore is newFakeCore whose agents get worktrees of their own
// in a git repository, as the app's do.
func newWorktreeCore(t *testing.T, b Backend) *fakeCore {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fakeCore{Backend: b}
	f.agents = supervisor.New(supervisor.Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Exited: func(id string, e supervisor.Exit) { f.reg.AgentExited(id, e) },
	})
	t.Cleanup(func() { f.agents.Close(context.Background()) })
	f.reg = mcpserver.New(db, mcpserver.Options{Env: envOf{b}, Agents: f.agents, Worktrees: filepath.Join(dir, "worktrees")})
	return f
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A session whose worktree was discarded since is not listed "can resume".
func TestListResumable(t *testing.T) {
	there := t.TempDir()
	ss := []store.Session{
		{ID: "ses_a", Kind: store.SessionSupervised, State: store.SessionLost, EndedWithApp: true, ConversationID: "c", Workspace: &store.Workspace{Path: there}},
		{ID: "ses_b", Kind: store.SessionSupervised, State: store.SessionLost, EndedWithApp: true, ConversationID: "c", Workspace: &store.Workspace{Path: filepath.Join(there, "gone")}},
	}
	listResumable(ss)
	if !ss[0].Resumable() || ss[1].Resumable() {
		t.Errorf("resumable after the listing: %v, %v; want true, false", ss[0].Resumable(), ss[1].Resumable())
	}
}
