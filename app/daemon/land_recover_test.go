package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/workspace"
)

// A landing cut off by a kill, on either side of its move, is settled by
// the next start: moved and unrecorded → the packet is landed with the
// move's commit; journaled and unmoved → the entry goes and the packet
// lands later as usual. A landing refused after its journal entry was
// written (the checkout in the way) leaves no entry behind. The person's
// uncommitted change and untracked file survive it all.
func TestStartSettlesJournaledLandings(t *testing.T) {
	repoDir := personRepo(t, map[string]string{"other.txt": "other\n"})
	writeFile(t, repoDir, "other.txt", "other, edited by the person\n")
	writeFile(t, repoDir, "scratch.txt", "the person's notes\n")
	personStatus := git(t, repoDir, "status", "--porcelain")

	t.Setenv("SHELL", "/bin/sh")
	paths := newPaths(t)
	cfg := Config{Paths: paths, Keyring: keyring.NewMemory()}
	d := start(t, cfg)
	ctx := context.Background()
	repo := registerRepo(t, d.Registry(), repoDir)
	var err error

	// work runs one agent through a packet that adds file, and returns
	// the packet and its session's worktree.
	work := func(file string) (store.Packet, store.Workspace) {
		t.Helper()
		reg := d.Registry()
		started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID})
		mustOK(t, err)
		var ses store.Session
		d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
		agent := mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}
		_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "Add " + file})
		mustOK(t, err)
		got, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
		mustOK(t, err)
		writeFile(t, got.Workspace.Path, file, file+" by the agent\n")
		done, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: got.Packet.ID, LeaseID: got.LeaseID})
		mustOK(t, err)
		return done.Packet, *got.Workspace
	}
	// cut lands p as work.land would, up to its journal entry, and then
	// moves the base or not, as a kill at that point would leave it.
	stop := errors.New("killed")
	cut := func(p store.Packet, ws store.Workspace, move bool) string {
		t.Helper()
		var next string
		_, err := workspace.Land(ctx, repoDir, workspace.Workspace{Path: ws.Path, Branch: ws.Branch, BaseBranch: ws.BaseBranch, BaseCommit: ws.BaseCommit},
			workspace.LandRequest{Message: "Land " + p.ID, BeforeMove: func(old, n string) error {
				next = n
				mustOK(t, d.db.Update(ctx, func(tx *store.Tx) error {
					return tx.BeginLanding(store.JournaledLanding{PacketID: p.ID, RepositoryID: repo.ID, RepoPath: repoDir, BaseRef: "refs/heads/main",
						OldTip: old, NewCommit: n, Mode: "merge", Checkout: repoDir})
				}))
				if !move {
					return stop
				}
				return nil
			}})
		if move && err != nil || !move && !errors.Is(err, stop) {
			t.Fatalf("landing %s up to the kill: %v", p.ID, err)
		}
		return next
	}
	moved, movedWS := work("moved.txt")
	unmoved, unmovedWS := work("unmoved.txt")
	commit := cut(moved, movedWS, true)
	tipBefore := strings.TrimSpace(git(t, repoDir, "rev-parse", "main"))
	cut(unmoved, unmovedWS, false)

	// A refusal after the journal entry: the person's uncommitted change
	// at a path the landing adds.
	refused, _ := work("refused.txt")
	writeFile(t, repoDir, "refused.txt", "the person's own\n")
	_, err = mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: refused.ID})
	if store.CodeOf(err) != store.CodeCheckoutInTheWay {
		t.Fatalf("landing over the person's file: %v, want checkout_in_the_way", err)
	}
	mustOK(t, os.Remove(filepath.Join(repoDir, "refused.txt")))
	d.db.View(ctx, func(tx *store.Tx) error {
		if _, ok, _ := tx.Landing(refused.ID); ok {
			t.Error("a refused landing left its journal entry")
		}
		return nil
	})

	d.stop()
	d = start(t, cfg)
	d.db.View(ctx, func(tx *store.Tx) error {
		if ls, err := tx.Landings(); err != nil || len(ls) != 0 {
			t.Errorf("journal after the start: %+v, %v", ls, err)
		}
		if p, _ := tx.Packet(moved.ID); p.Landed == nil || p.Landed.Commit != commit {
			t.Errorf("the moved packet after the start: %+v, want landed as %s", p.Landed, commit)
		}
		if p, _ := tx.Packet(unmoved.ID); p.Landed != nil {
			t.Errorf("the unmoved packet after the start: landed %+v", p.Landed)
		}
		recs, err := tx.QueryAudit(store.AuditFilter{Method: "work.land_recover", Limit: 10})
		if err != nil || len(recs) != 2 {
			t.Errorf("work.land_recover audit records: %d, %v; want 2", len(recs), err)
		}
		return nil
	})
	if tip := strings.TrimSpace(git(t, repoDir, "rev-parse", "main")); tip != tipBefore {
		t.Errorf("main moved at the start: %s, was %s", tip, tipBefore)
	}
	// The landed packet's worktree goes (the stop's tidy, or the start's,
	// which runs in the background); the unlanded one's stays.
	waitFor(t, func() bool { _, err := os.Stat(movedWS.Path); return os.IsNotExist(err) })
	if _, err := os.Stat(unmovedWS.Path); err != nil {
		t.Errorf("the worktree of the unlanded packet after the start: %v", err)
	}
	// The unmoved one lands now, and both packets' files are there.
	for _, p := range []store.Packet{unmoved, refused} {
		_, err = mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: p.ID})
		mustOK(t, err)
	}
	for _, f := range []string{"moved.txt", "unmoved.txt", "refused.txt"} {
		if got, err := os.ReadFile(filepath.Join(repoDir, f)); err != nil || string(got) != f+" by the agent\n" {
			t.Errorf("%s in the checkout: %q, %v", f, got, err)
		}
	}
	if st := git(t, repoDir, "status", "--porcelain"); st != personStatus {
		t.Errorf("the person's checkout: %q, want %q", st, personStatus)
	}
}
