package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// Two agents on one repository change the same line of the same file, each
// in its own worktree. The first lands into the person's checkout, which
// has an uncommitted change in another file and an untracked file: both
// survive. The second conflicts: merge_conflict naming the file, the base
// branch unmoved, the checkout as it was.
func TestLandTwoAgentsOneLine(t *testing.T) {
	repoDir := personRepo(t, map[string]string{"greet.txt": "hello\n", "other.txt": "other\n"})
	writeFile(t, repoDir, "other.txt", "other, edited by the person\n")
	writeFile(t, repoDir, "scratch.txt", "the person's notes\n")

	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	repo := registerRepo(t, reg, repoDir)
	var err error

	// work runs one agent through a packet: claim, change greet.txt,
	// complete; it returns the packet.
	sessions := map[string]string{} // packet → session
	work := func(line string) string {
		t.Helper()
		started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID})
		mustOK(t, err)
		var ses store.Session
		d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
		agent := mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}
		_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "Greet " + line})
		mustOK(t, err)
		got, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
		mustOK(t, err)
		writeFile(t, got.Workspace.Path, "greet.txt", line+"\n")
		_, err = mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: got.Packet.ID, LeaseID: got.LeaseID})
		mustOK(t, err)
		sessions[got.Packet.ID] = ses.ID
		return got.Packet.ID
	}
	first, second := work("hello, world"), work("hi there")
	land := func(pkt string) (mcpserver.LandResult, error) {
		return mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: pkt})
	}

	landed, err := land(first)
	mustOK(t, err)
	if tip := strings.TrimSpace(git(t, repoDir, "rev-parse", "main")); tip != landed.Commit || landed.Packet.Landed == nil || landed.Packet.Landed.Commit != tip {
		t.Errorf("landed %+v; main at %s", landed, tip)
	}
	for name, want := range map[string]string{"greet.txt": "hello, world\n", "other.txt": "other, edited by the person\n", "scratch.txt": "the person's notes\n"} {
		if got, err := os.ReadFile(filepath.Join(repoDir, name)); err != nil || string(got) != want {
			t.Errorf("%s in the person's checkout is %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := land(first); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("landing twice: %v, want invalid_state", err)
	}

	before := git(t, repoDir, "status", "--porcelain")
	tip := git(t, repoDir, "rev-parse", "main")
	_, err = land(second)
	if store.CodeOf(err) != store.CodeMergeConflict || !strings.Contains(err.Error(), "greet.txt") {
		t.Fatalf("landing the second: %v, want merge_conflict naming greet.txt", err)
	}
	if d := (*store.Denial)(nil); !errors.As(err, &d) || !slices.Equal(d.Paths, []string{"greet.txt"}) {
		t.Errorf("the conflict's paths: %+v", d)
	}
	if git(t, repoDir, "rev-parse", "main") != tip || git(t, repoDir, "status", "--porcelain") != before {
		t.Error("a conflicting landing moved main or changed the checkout")
	}
	if got, _ := os.ReadFile(filepath.Join(repoDir, "greet.txt")); strings.Contains(string(got), "<<<<<<<") {
		t.Errorf("conflict markers in the checkout: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repoDir, ".git", "MERGE_HEAD")); err == nil {
		t.Error("a half-done merge is left in the checkout")
	}

	// The worktrees: the first landed, the second with one commit not on
	// main. Discarding one needs its agent stopped, keeps its branch and
	// so its commit, and takes the folder away.
	list, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkspaceList, mcpserver.NoArgs{})
	mustOK(t, err)
	states := map[string]string{}
	var secondWS store.Workspace
	for _, e := range list.Workspaces {
		if e.State == nil {
			t.Fatalf("workspace %+v unreadable", e)
		}
		states[e.SessionID] = fmt.Sprintf("landed=%v unlanded=%d", e.State.Landed, e.State.Unlanded)
		if e.SessionID == sessions[second] {
			secondWS = e.Workspace
		}
	}
	if states[sessions[first]] != "landed=true unlanded=0" || states[sessions[second]] != "landed=false unlanded=1" {
		t.Errorf("workspace states %v", states)
	}
	discard := func() error {
		_, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkspaceDiscard, mcpserver.WorkspaceDiscardArgs{SessionID: sessions[second]})
		return err
	}
	if err := discard(); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("discarding a live session's worktree: %v, want invalid_state", err)
	}
	_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: sessions[second]})
	mustOK(t, err)
	writeFile(t, secondWS.Path, "left.txt", "left uncommitted\n")
	mustOK(t, discard())
	if _, err := os.Stat(secondWS.Path); !os.IsNotExist(err) {
		t.Errorf("the discarded worktree is still there: %v", err)
	}
	if files := git(t, repoDir, "ls-tree", "--name-only", secondWS.Branch); !strings.Contains(files, "left.txt") || !strings.Contains(git(t, repoDir, "show", secondWS.Branch+":greet.txt"), "hi there") {
		t.Errorf("the discarded worktree's branch lost work: %q", files)
	}

	// The landed worktree goes when its agent ends; its branch, merged,
	// with it.
	var firstWS store.Workspace
	for _, e := range list.Workspaces {
		if e.SessionID == sessions[first] {
			firstWS = e.Workspace
		}
	}
	_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: sessions[first]})
	mustOK(t, err)
	// The tidy runs after the exit: the folder goes, then the branch.
	waitFor(t, func() bool {
		_, err := os.Stat(firstWS.Path)
		return os.IsNotExist(err) && !strings.Contains(git(t, repoDir, "branch", "--list", firstWS.Branch), "switchboard/")
	})
}
