package daemon

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// A session that ended with the app — a quit, or a kill that left it
// running in the database — is resumed in the same worktree, on the same
// conversation, under the same session id with a new token, and still
// holds the lease of the packet it was working on.
func TestResumeKeepsLeaseAndWorktree(t *testing.T) {
	bin := buildStandin(t)
	for _, how := range []string{"quit", "kill"} {
		t.Run(how, func(t *testing.T) { testResume(t, bin, how) })
	}
}

func testResume(t *testing.T, bin, how string) {
	ctx := context.Background()
	paths := newPaths(t)
	cfg := Config{Paths: paths, Keyring: keyring.NewMemory()}
	d := start(t, cfg)
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"a.txt": "one\n"}))
	// The stand-in prints its arguments: the conversation's are among them.
	_, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: store.Profile{
		ID: "standin", Name: "Stand-in", Command: bin, Args: []string{"agent", "{prompt}"}, Prompt: store.PromptArgument,
		Conversation: &store.Conversation{StartArgs: []string{"--session-id={conversation_id}"}, ResumeArgs: []string{"--resume={conversation_id}"}},
	}})
	mustOK(t, err)
	started, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: "standin", RepositoryID: repo.ID, Prompt: "begin", Cols: 400, Rows: 40})
	mustOK(t, err)
	ws := started.Workspace
	if ws == nil {
		t.Fatalf("agent.start made no worktree: %+v", started)
	}
	first := sessionOf(t, d, started.SessionID)
	if first.ConversationID == "" {
		t.Fatal("no conversation id recorded at the start")
	}
	screen(t, d, started.SessionID, "ARGS=--session-id="+first.ConversationID+"|begin", "MCP=ok")

	// The agent claims a packet with its own token.
	_, err = mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "t"})
	mustOK(t, err)
	agent := mcpserver.Principal{KeyID: first.TokenKeyID, SessionID: first.ID}
	claim, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: 1})
	mustOK(t, err)
	if claim.Packet == nil {
		t.Fatal("nothing claimed")
	}

	var killed []byte // the database as a kill of the app would leave it
	if how == "kill" {
		f, err := os.Open(paths.DB())
		mustOK(t, err)
		killed, err = io.ReadAll(f)
		f.Close()
		mustOK(t, err)
	}
	d.stop()
	if how == "kill" {
		// The quit stopped the agent; the database says it still runs.
		mustOK(t, os.WriteFile(paths.DB(), killed, 0o600))
	}

	d = start(t, cfg)
	// The start tidies ended sessions' worktrees in the background: wait
	// for it, so the worktree is seen after it, not before.
	mustOK(t, d.Registry().WaitTidy(ctx))
	ended := sessionOf(t, d, first.ID)
	wantState := map[string]store.SessionState{"quit": store.SessionEnded, "kill": store.SessionLost}[how]
	if ended.State != wantState || !ended.Resumable() {
		t.Fatalf("after the %s: session %s, resumable %v; want %s and resumable", how, ended.State, ended.Resumable(), wantState)
	}
	if _, err := os.Stat(ws.Path); err != nil {
		t.Fatalf("the worktree is gone after the %s: %v", how, err)
	}
	var pkt store.Packet
	d.db.View(func(tx *store.Tx) error { pkt, _ = tx.Packet(claim.Packet.ID); return nil })
	if pkt.Lease == nil || pkt.Lease.ID != claim.LeaseID {
		t.Fatalf("after the %s the packet is %s with lease %+v; want still leased as %s", how, pkt.State, pkt.Lease, claim.LeaseID)
	}
	sessions, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodSessionList, store.SessionFilter{})
	mustOK(t, err)
	if len(sessions.Sessions) != 1 || !sessions.Sessions[0].Resumable() {
		t.Errorf("session.list does not show the session resumable: %+v", sessions.Sessions)
	}

	resumed, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: first.ID, Cols: 400, Rows: 40})
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
	if _, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.Operator, mcpserver.TransportGUI, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: first.ID}); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("resuming a running session: %v, want invalid_state", err)
	}
}

func sessionOf(t *testing.T, d *running, id string) store.Session {
	t.Helper()
	var s store.Session
	mustOK(t, d.db.View(func(tx *store.Tx) (err error) { s, err = tx.Session(id); return err }))
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
