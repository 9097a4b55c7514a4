package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// An agent started on a packet: its prompt names the packet, its branch
// is named after it, and the packet is held for it, so another agent's
// claim passes it by.
func TestAgentStartedOnAPacket(t *testing.T) {
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	pkt := d.gui("work.create", map[string]any{"repository_id": repo.ID, "title": "Fix the login bug"}).Value.(mcpserver.PacketResult).Packet
	// The prompt comes as the argument; the agent prints it and waits.
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "echo", Name: "Echo", Command: "/bin/sh",
		Args: []string{"-c", `printf '%s\nREADY\n' "$1"; exec sleep 600`, "echo", "{prompt}"}, Prompt: profile.PromptArgument}})
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "echo", RepositoryID: repo.ID, PacketID: pkt.ID}).Value.(mcpserver.AgentStarted)
	s, ok := d.Registry().Agents().Get(started.SessionID)
	if !ok {
		t.Fatal("the agent is not running")
	}
	var screen string
	waitFor(t, func() bool { screen = s.Terminal().Text(); return strings.Contains(screen, "READY") })
	if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), pkt.ID) { // the screen wraps it
		t.Errorf("the agent's prompt does not name its packet %s:\n%s", pkt.ID, screen)
	}
	ses := d.session(started.SessionID)
	if ses.Packet != pkt.ID || ses.Name != "Fix the login bug" || ses.Workspace == nil || !strings.HasSuffix(ses.Workspace.Branch, "/fix-the-login-bug") {
		t.Errorf("session: packet %q, name %q, workspace %+v", ses.Packet, ses.Name, ses.Workspace)
	}
	if got := d.packet(pkt.ID); got.ReservedFor != started.SessionID {
		t.Errorf("the packet is held for %q, want %s", got.ReservedFor, started.SessionID)
	}
	// Another agent's claim passes it by.
	other := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "echo", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
	agent := mcpserver.Principal{KeyID: d.session(other.SessionID).TokenKeyID, SessionID: other.SessionID}
	got := invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.await_packet",
		map[string]any{"repository_id": repo.ID, "session_id": other.SessionID, "wait_seconds": -1}).Value.(mcpserver.AwaitResult)
	if got.Packet != nil {
		t.Errorf("another agent claimed %s, held for the first", got.Packet.ID)
	}
	// A packet already held cannot be started on again.
	again, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: "echo", RepositoryID: repo.ID, PacketID: pkt.ID})
	if store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("a second start on the held packet: %+v, %v", again, err)
	}
}
