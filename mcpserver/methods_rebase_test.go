package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
)

// gitState is what a test compares of a work tree before and after: its
// status, its HEAD and every tracked and untracked file's text.
func gitState(t *testing.T, dir string) string {
	t.Helper()
	s := testGit(t, dir, "status", "--porcelain=v1", "--untracked-files=all") + testGit(t, dir, "rev-parse", "HEAD") +
		testGit(t, dir, "diff", "HEAD")
	for _, f := range strings.Fields(testGit(t, dir, "ls-files", "--cached", "--others")) {
		s += "== " + f + "\n" + gittest.ReadFile(t, filepath.Join(dir, f))
	}
	return s
}

// A packet behind main is rebased onto main's tip, onto a new branch: the
// packet then names the new range (and keeps the agent's), its plan and
// its conflict check read it, and it lands with exactly its own change. A
// packet whose commits conflict with main is refused as merge_conflict
// naming the file, and nothing is written. Either way the agent's branch
// and worktree and the person's checkout are as they were.
func TestWorkRebase(t *testing.T) {
	for _, conflicting := range []bool{false, true} {
		t.Run(map[bool]string{false: "clean", true: "conflict"}[conflicting], func(t *testing.T) {
			ctx := context.Background()
			e := newLandEnv(t)
			p := e.work(t, "Edit a", nil, map[string]string{"a.txt": "a, by the agent\n"})
			moved := "b.txt"
			if conflicting {
				moved = "a.txt"
			}
			gittest.WriteFile(t, filepath.Join(e.dir, moved), moved+", by the person\n")
			testGit(t, e.dir, "commit", "-q", "-am", "the person's")
			gittest.WriteFile(t, filepath.Join(e.dir, "notes.txt"), "the person's untracked notes\n")
			gittest.WriteFile(t, filepath.Join(e.dir, "c.txt"), "c, not committed\n")
			gittest.WriteFile(t, filepath.Join(e.a.ws.Path, "scratch.txt"), "the agent's scratch\n")
			person, agent := gitState(t, e.dir), gitState(t, e.a.ws.Path)
			agentTip := testGit(t, e.dir, "rev-parse", e.a.ws.Branch)
			mainTip := strings.TrimSpace(testGit(t, e.dir, "rev-parse", "main"))
			before := packetNow(t, e.f, p.ID)
			unchanged := func(when string) {
				t.Helper()
				if got := gitState(t, e.dir); got != person {
					t.Errorf("%s: the person's checkout changed:\n%s\nwant\n%s", when, got, person)
				}
				if got := gitState(t, e.a.ws.Path); got != agent {
					t.Errorf("%s: the agent's worktree changed:\n%s\nwant\n%s", when, got, agent)
				}
				if got := testGit(t, e.dir, "rev-parse", e.a.ws.Branch); got != agentTip {
					t.Errorf("%s: the agent's branch moved to %s", when, got)
				}
			}

			out, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkRebase, WorkConflictHunksArgs{PacketID: p.ID})
			branch := e.a.ws.Branch + "-rebased"
			if conflicting {
				var d *store.Denial
				if !errors.As(err, &d) || d.Code != store.CodeMergeConflict || !slices.Equal(d.Paths, []string{"a.txt"}) {
					t.Fatalf("rebasing a conflicting packet: %+v, %v; want merge_conflict in a.txt", out, err)
				}
				if _, err := gitcmd.Run(ctx, e.dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
					t.Error("a conflicting rebase made its branch")
				}
				if after := packetNow(t, e.f, p.ID); !reflect.DeepEqual(after, before) {
					t.Errorf("a conflicting rebase changed the packet:\n%+v\nwant\n%+v", after, before)
				}
				unchanged("after the refused rebase")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ch := out.Packet.Changes
			if out.Branch != branch || ch.Branch != branch || ch.From != mainTip || out.Onto != mainTip || ch.To != out.Head ||
				strings.TrimSpace(testGit(t, e.dir, "rev-parse", branch)) != out.Head {
				t.Fatalf("rebased: %+v, changes %+v", out, ch)
			}
			if ch.RebasedFrom == nil || *ch.RebasedFrom != (store.PacketRange{Branch: e.a.ws.Branch, From: before.Changes.From, To: before.Changes.To}) {
				t.Errorf("the agent's range is not kept: %+v", ch.RebasedFrom)
			}
			unchanged("after the rebase")

			// The conflict check and the plan take the new range.
			h, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkConflictHunks, WorkConflictHunksArgs{PacketID: p.ID})
			if err != nil || h.Status.Head != out.Head || h.Status.From != mainTip || len(h.Files) != 0 {
				t.Errorf("the conflict check after the rebase: %+v, %v", h.Status, err)
			}
			// Rebasing again needs nothing: the range is on main's tip.
			if _, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkRebase, WorkConflictHunksArgs{PacketID: p.ID}); store.CodeOf(err) != store.CodeInvalidState {
				t.Errorf("rebasing again onto the same tip: %v, want invalid_state", err)
			}

			e.verdict(t, p.ID, store.VerdictApprove)
			pl, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkLandPlan, WorkLandArgs{PacketID: p.ID, Mode: "merge"})
			if err != nil || len(pl.Commits) != 1 || pl.Commits[0].Commit != out.Head || len(pl.Files) != 1 || pl.Files[0].Path != "a.txt" || pl.Branch != branch {
				t.Errorf("the plan after the rebase: %+v, %v", pl, err)
			}
			l, err := e.land(p.ID)
			if err != nil || l.Files != 1 {
				t.Fatalf("landing the rebased packet: %+v, %v", l, err)
			}
			if got := e.mainHas(t, "a.txt"); got != "a, by the agent\n" {
				t.Errorf("main's a.txt: %q", got)
			}
			if got := e.mainHas(t, "b.txt"); got != "b.txt, by the person\n" {
				t.Errorf("main's b.txt: %q", got)
			}
			if got := strings.TrimSpace(testGit(t, e.dir, "rev-parse", "main^2")); got != out.Head {
				t.Errorf("the landing merged %s, not the rebased range's head %s", got, out.Head)
			}
			if got := testGit(t, e.dir, "diff", "--name-only", mainTip, "main"); got != "a.txt\n" {
				t.Errorf("the landing changed %q, want a.txt alone", got)
			}
			if got := testGit(t, e.dir, "rev-parse", e.a.ws.Branch); got != agentTip {
				t.Errorf("the landing moved the agent's branch to %s", got)
			}
		})
	}
}

// work.rebase is the person's: a session's token is refused, and a packet
// with nothing waiting to land is invalid_state.
func TestWorkRebaseRefuses(t *testing.T) {
	ctx := context.Background()
	e := newLandEnv(t)
	p := e.work(t, "Edit a", nil, map[string]string{"a.txt": "a, by the agent\n"})
	if _, err := Invoke(ctx, e.f.reg, e.a.p, TransportMCP, MethodWorkRebase, WorkConflictHunksArgs{PacketID: p.ID}); err == nil {
		t.Error("a session's token rebased a packet")
	}
	e.verdict(t, p.ID, store.VerdictReject)
	if _, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkRebase, WorkConflictHunksArgs{PacketID: p.ID}); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("rebasing a rejected packet: %v, want invalid_state", err)
	}
}

// packetNow reads a packet as the database holds it.
func packetNow(t *testing.T, f *fixture, id string) store.Packet {
	t.Helper()
	var p store.Packet
	f.view(t, func(tx *store.Tx) error {
		var err error
		p, err = tx.Packet(id)
		return err
	})
	return p
}

// A rebased packet sent back to its agent is completed again on the
// agent's own branch: its range is the agent's again, from where its work
// began (not the target's tip it was rebased onto, which the agent's
// branch does not have), so it holds no commit of an earlier packet.
func TestWorkRebaseThenSentBack(t *testing.T) {
	ctx := context.Background()
	e := newLandEnv(t)
	e.work(t, "Edit a", nil, map[string]string{"a.txt": "a, by the agent\n"})
	p := e.work(t, "Edit c", nil, map[string]string{"c.txt": "c, by the agent\n"})
	gittest.WriteFile(t, filepath.Join(e.dir, "b.txt"), "b, by the person\n")
	testGit(t, e.dir, "commit", "-q", "-am", "the person's")
	if _, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkRebase, WorkConflictHunksArgs{PacketID: p.ID}); err != nil {
		t.Fatal(err)
	}
	e.verdict(t, p.ID, store.VerdictRequestChanges)
	got := e.a.claim(t, e.repo.ID)
	if got.Packet.ID != p.ID {
		t.Fatalf("claimed %s, want %s", got.Packet.ID, p.ID)
	}
	gittest.WriteFile(t, filepath.Join(e.a.ws.Path, "c.txt"), "c, by the agent, again\n")
	again, err := e.a.complete(got)
	if err != nil {
		t.Fatal(err)
	}
	ch := again.Changes
	if ch.Branch != e.a.ws.Branch || ch.From != p.Changes.From || ch.RebasedFrom != nil {
		t.Errorf("completed again: %+v; want the agent's branch from %s", ch, p.Changes.From)
	}
	if files := testGit(t, e.dir, "diff", "--name-only", ch.From, ch.To); files != "c.txt\n" {
		t.Errorf("the range after the send-back changes %q, want c.txt alone", files)
	}
}
