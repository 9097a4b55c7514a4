package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// gitIn runs git in dir and returns what it printed, trimmed.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// personRepo is a repository on main whose first commit, greet.txt, its
// configured person made.
func personRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "user.name", "Dev Person")
	gitIn(t, dir, "config", "user.email", "dev@example.com")
	if err := os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// agentWrites starts a shell agent on repoID which, as its MCP calls
// would, claims pkt, writes text to name in its worktree and completes it.
// It returns the claim and the agent's principal.
func agentWrites(t *testing.T, h *harness, d *daemon.Daemon, repoID, pkt, name, text string) (mcpserver.AwaitResult, mcpserver.Principal) {
	t.Helper()
	ctx := context.Background()
	started := h.invoke(d, "agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repoID})
	var ses store.Session
	h.view(d, func(tx *store.Tx) error {
		var err error
		ses, err = tx.Session(started["session_id"].(string))
		return err
	})
	agent := mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}
	got, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repoID, WaitSeconds: -1})
	if err != nil || got.Packet.ID != pkt {
		t.Fatalf("claim: %+v, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(got.Workspace.Path, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: pkt, LeaseID: got.LeaseID}); err != nil {
		t.Fatal(err)
	}
	return got, agent
}
