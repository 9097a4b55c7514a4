package daemon

import (
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Request changes reaches the agent that made them even at its prompt: the
// instruction to take the packet again is typed in once it sits idle.
func TestRequestChangesNudgesAnIdleAgent(t *testing.T) {
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	// An agent that reads what is typed and prints it back.
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "echo", Name: "Echo", Command: "/bin/sh",
		Args: []string{"-c", `echo READY; exec cat`, "echo", "{prompt}"}, Prompt: profile.PromptArgument}})
	pkt := d.gui("work.create", map[string]any{"repository_id": repo.ID, "title": "Tidy", "review_required": true}).Value.(mcpserver.PacketResult).Packet
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "echo", RepositoryID: repo.ID, PacketID: pkt.ID}).Value.(mcpserver.AgentStarted)
	s, ok := d.Registry().Agents().Get(started.SessionID)
	if !ok {
		t.Fatal("the agent is not running")
	}
	agent := mcpserver.Principal{KeyID: d.session(started.SessionID).TokenKeyID, SessionID: started.SessionID}
	claimed := invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.await_packet",
		map[string]any{"repository_id": repo.ID, "session_id": started.SessionID, "wait_seconds": -1}).Value.(mcpserver.AwaitResult)
	invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.complete",
		map[string]any{"packet_id": pkt.ID, "session_id": started.SessionID, "lease_id": claimed.LeaseID})
	waitUntil(t, "the agent idle at its prompt", func() bool { return s.Status() == supervisor.StatusIdle })
	d.gui("review.verdict", mcpserver.VerdictArgs{PacketID: pkt.ID, Verdict: store.VerdictRequestChanges, Notes: "shorter"})
	waitUntil(t, "the nudge on the agent's screen", func() bool {
		return strings.Contains(strings.ReplaceAll(s.Terminal().Text(), "\n", ""), "came back to you with changes requested")
	})
}
