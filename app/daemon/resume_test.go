package daemon

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// A session that ended with the app — a quit, or a kill that left it
// running in the database — is resumed in the same worktree, on the same
// conversation, under the same session id with a new token, and still
// holds the lease of the packet it was working on. "found" is a CLI that
// picks its own conversation id (as Codex does), killed before the run saw
// the id: the next start reads it from the CLI's file.
func TestResumeKeepsLeaseAndWorktree(t *testing.T) {
	bin := buildStandin(t)
	for _, how := range []string{"quit", "kill", "found"} {
		t.Run(how, func(t *testing.T) { testResume(t, bin, how) })
	}
}

func testResume(t *testing.T, bin, how string) {
	ctx := context.Background()
	paths := newPaths(t)
	cfg := Config{Paths: paths, Keyring: keyring.NewMemory()}
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome) // the supervisor's agents' environment
	d := start(t, cfg)
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"a.txt": "one\n"}))
	// The stand-in prints its arguments: the conversation's are among them.
	conv := &profile.Conversation{StartArgs: []string{"--session-id={conversation_id}"}, ResumeArgs: []string{"--resume={conversation_id}"}}
	if how == "found" {
		conv = &profile.Conversation{ResumeArgs: []string{"--resume={conversation_id}"}, Find: profile.FindCodex}
	}
	_, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
		ID: "standin", Name: "Stand-in", Command: bin, Args: []string{"agent", "{prompt}"}, Prompt: profile.PromptArgument,
		Conversation: conv,
	}})
	mustOK(t, err)
	started, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: "standin", RepositoryID: repo.ID, Prompt: "begin", Cols: 400, Rows: 40})
	mustOK(t, err)
	ws := started.Workspace
	if ws == nil {
		t.Fatalf("agent.start made no worktree: %+v", started)
	}
	first := sessionOf(t, d, started.SessionID)
	if how == "found" {
		// The CLI has not written its id yet.
		screen(t, d, started.SessionID, "ARGS=begin", "MCP=ok")
	} else {
		if first.ConversationID == "" {
			t.Fatal("no conversation id recorded at the start")
		}
		screen(t, d, started.SessionID, "ARGS=--session-id="+first.ConversationID+"|begin", "MCP=ok")
	}

	// The agent claims a packet with its own token.
	_, err = mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "t"})
	mustOK(t, err)
	agent := mcpserver.Principal{KeyID: first.TokenKeyID, SessionID: first.ID}
	claim, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: 1})
	mustOK(t, err)
	if claim.Packet == nil {
		t.Fatal("nothing claimed")
	}

	var killed []byte // the database as a kill of the app would leave it
	if how != "quit" {
		f, err := os.Open(paths.DB())
		mustOK(t, err)
		killed, err = io.ReadAll(f)
		f.Close()
		mustOK(t, err)
	}
	if how == "found" {
		// The CLI writes its conversation's file after the kill's
		// snapshot of the database: the run that is killed has not
		// recorded the id. (It sees it before the quit below, which
		// keeps the worktree as a kill would.)
		first.ConversationID = "019ad3c5-7e0f-7a31-b2c4-5d6e7f8091a2"
		day := filepath.Join(codexHome, "sessions", time.Now().Format("2006/01/02"))
		mustOK(t, os.MkdirAll(day, 0o700))
		writeFile(t, day, "rollout-x-"+first.ConversationID+".jsonl",
			`{"type":"session_meta","payload":{"id":"`+first.ConversationID+`","cwd":"`+ws.Path+`"}}`+"\n")
		waitFor(t, func() bool { return sessionOf(t, d, first.ID).ConversationID == first.ConversationID })
	}
	d.stop()
	if how != "quit" {
		// The quit stopped the agent; the database says it still runs.
		mustOK(t, os.WriteFile(paths.DB(), killed, 0o600))
	}

	d = start(t, cfg)
	// The start tidies ended sessions' worktrees in the background: wait
	// for it, so the worktree is seen after it, not before.
	mustOK(t, d.Registry().WaitTidy(ctx))
	ended := sessionOf(t, d, first.ID)
	wantState := map[string]store.SessionState{"quit": store.SessionEnded, "kill": store.SessionLost, "found": store.SessionLost}[how]
	if ended.State != wantState || !ended.Resumable() {
		t.Fatalf("after the %s: session %s, resumable %v; want %s and resumable", how, ended.State, ended.Resumable(), wantState)
	}
	if _, err := os.Stat(ws.Path); err != nil {
		t.Fatalf("the worktree is gone after the %s: %v", how, err)
	}
	var pkt store.Packet
	d.db.View(ctx, func(tx *store.Tx) error { pkt, _ = tx.Packet(claim.Packet.ID); return nil })
	if pkt.Lease == nil || pkt.Lease.ID != claim.LeaseID {
		t.Fatalf("after the %s the packet is %s with lease %+v; want still leased as %s", how, pkt.State, pkt.Lease, claim.LeaseID)
	}
	sessions, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodSessionList, store.SessionFilter{})
	mustOK(t, err)
	if len(sessions.Sessions) != 1 || !sessions.Sessions[0].Resumable() {
		t.Errorf("session.list does not show the session resumable: %+v", sessions.Sessions)
	}

	resumed, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: first.ID, Cols: 400, Rows: 40})
	mustOK(t, err)
	if resumed.SessionID != first.ID || resumed.Workspace == nil || *resumed.Workspace != *ws || resumed.PID == 0 {
		t.Errorf("agent.resume = %+v; want session %s in %s", resumed, first.ID, ws.Path)
	}
	screen(t, d, first.ID, "PWD="+ws.Path, "ARGS=--resume="+first.ConversationID+"|", claim.LeaseID, "MCP=ok")
	again := sessionOf(t, d, first.ID)
	if again.State != store.SessionRunning || again.TokenKeyID == first.TokenKeyID || again.Resumes != 1 || again.ConversationID != first.ConversationID {
		t.Errorf("the resumed session: %+v", again)
	}
	// Its new token carries on under the lease it still holds.
	agent = mcpserver.Principal{KeyID: again.TokenKeyID, SessionID: again.ID}
	if _, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodWorkAck, mcpserver.LeaseArgs{PacketID: claim.Packet.ID, LeaseID: claim.LeaseID}); err != nil {
		t.Errorf("ack under the kept lease after the resume: %v", err)
	}
	if _, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: first.ID}); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("resuming a running session: %v, want invalid_state", err)
	}
}

func sessionOf(t *testing.T, d *running, id string) store.Session {
	t.Helper()
	var s store.Session
	mustOK(t, d.db.View(context.Background(), func(tx *store.Tx) (err error) { s, err = tx.Session(id); return err }))
	return s
}

// screen waits until the agent's screen shows every one of want.
func screen(t *testing.T, d *running, id string, want ...string) {
	t.Helper()
	s, ok := d.Agents().Get(id)
	if !ok {
		t.Fatalf("no agent %s", id)
	}
	waitFor(t, func() bool {
		text := strings.ReplaceAll(s.Terminal().Text(), "\n", "")
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
}
