package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// changesE2E is a real registry and git: repository "greet" on main, and
// a packet in review that an agent completed in its own worktree,
// changing greet.go's Hello to take a name. claim claims the packet again
// as that agent.
type changesE2E struct {
	g     *gui
	repo  string
	pkt   store.Packet
	claim func() mcpserver.AwaitResult
}

func newChangesE2E(t *testing.T) changesE2E {
	ctx := context.Background()
	git := func(dir string, args ...string) {
		t.Helper()
		if _, err := gitcmd.Run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	repo := t.TempDir()
	git(repo, "init", "-q", "-b", "main")
	git(repo, "config", "user.name", "Ada Lovelace")
	git(repo, "config", "user.email", "ada@example.com")
	gittest.WriteFile(t, filepath.Join(repo, "greet.go"), "package greet\n\nfunc Hello() string {\n\treturn \"hello\"\n}\n")
	git(repo, "add", "greet.go")
	git(repo, "commit", "-q", "-m", "greet")

	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	r, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repo, Name: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	repoID := r.Repository.ID
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Greet by name", ReviewRequired: true, WriteScope: []string{"**"}})

	// The agent's session, in a worktree of its own, as a supervised
	// agent's is.
	ses := workAgentCall(t, g, "session.report", mcpserver.ReportArgs{Kind: "ready", RepositoryID: repoID}).Value.(mcpserver.ReportResult).SessionID
	ws, err := workspace.Create(ctx, workspace.Spec{RepoPath: repo, Root: t.TempDir(), RepositoryID: repoID, SessionID: ses, Slug: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	err = g.core.Registry().DB().Update(ctx, func(tx *store.Tx) error {
		_, err := tx.SetSessionWorkspace(ses, store.Workspace{Path: ws.Path, Branch: ws.Branch, BaseBranch: ws.BaseBranch, BaseCommit: ws.BaseCommit})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	claim := func() mcpserver.AwaitResult {
		t.Helper()
		return workAgentCall(t, g, "work.await_packet", mcpserver.AwaitArgs{RepositoryID: repoID, SessionID: ses, WaitSeconds: 1}).Value.(mcpserver.AwaitResult)
	}
	aw := claim()
	if aw.Packet == nil || aw.Packet.ID != p.ID {
		t.Fatalf("claimed %+v", aw.Packet)
	}
	lease := mcpserver.LeaseArgs{PacketID: p.ID, SessionID: ses, LeaseID: aw.LeaseID}
	workAgentCall(t, g, "work.ack", lease)
	gittest.WriteFile(t, filepath.Join(ws.Path, "greet.go"), "package greet\n\nfunc Hello(name string) string {\n\treturn \"hello, \" + name\n}\n")
	workAgentCall(t, g, "work.complete", mcpserver.CompleteArgs{PacketID: p.ID, SessionID: ses, LeaseID: aw.LeaseID, Summary: "takes a name"})

	return changesE2E{g: g, repo: repo, pkt: p, claim: claim}
}

// On the real registry and git: an agent completes a packet in a worktree
// of its own; the reviewer opens its Changes, comments on a line and
// requests changes; the agent's next claim of the packet carries the
// comment with its path, line and side.
func TestChangesCommentReachesAgent(t *testing.T) {
	e := newChangesE2E(t)
	g, p, claim := e.g, e.pkt, e.claim
	v := g.showPacketChanges(p.ID)
	defer v.closeWin()
	if len(v.files) != 1 || v.files[0].Path() != "greet.go" || !v.review.request.Visible() {
		t.Fatalf("files %+v, Request changes shown %v, status %q", v.files, v.review.request.Visible(), v.status.Text)
	}
	i := v.lineRow("greet.go", 4, store.SideNew)
	v.on(func() { v.scrollToRow(i) })
	test.Tap(v.shownLine(i))
	focusAndType(v.win, v.review.commentEntry, "Say hello to the world when name is empty.")
	test.Tap(v.review.commentAdd)
	test.Tap(v.review.request)
	if got := workGetPacket(t, g, p.ID).Packet; got.State != store.PacketQueued {
		t.Fatalf("after Request changes: %s; status %q", got.State, v.status.Text)
	}

	aw := claim()
	if aw.Packet == nil || aw.Packet.Review == nil {
		t.Fatalf("the next claim: %+v", aw.Packet)
	}
	want := store.ReviewComment{Path: "greet.go", Line: 4, Side: store.SideNew, Text: "Say hello to the world when name is empty."}
	if rv := aw.Packet.Review; rv.Verdict != store.VerdictRequestChanges || len(rv.Comments) != 1 || rv.Comments[0] != want {
		t.Fatalf("review in the claim: %+v, want the comment %+v", rv, want)
	}
}

// On the real registry and git: Approve records the verdict and main does
// not move; Land ▾ shows the plan (main, merge, the agent's commit, the
// file) and main still does not move until Land is tapped, when the
// packet lands. When main has moved on under it in the same lines, the
// landing is refused as a conflict naming the file, and Send back to
// agent returns the packet to the queue asking for a rebase.
func TestChangesApproveThenLand(t *testing.T) {
	for _, conflict := range []bool{false, true} {
		t.Run(map[bool]string{false: "lands", true: "conflict"}[conflict], func(t *testing.T) {
			e := newChangesE2E(t)
			ctx := context.Background()
			git := func(args ...string) string {
				t.Helper()
				out, err := gitcmd.Run(ctx, e.repo, args...)
				if err != nil {
					t.Fatal(err)
				}
				return strings.TrimSpace(string(out))
			}
			if conflict {
				gittest.WriteFile(t, filepath.Join(e.repo, "greet.go"), "package greet\n\nfunc Hello() string {\n\treturn \"hi\"\n}\n")
				git("add", "greet.go")
				git("commit", "-q", "-m", "hi")
			}
			tip := git("rev-parse", "main")
			v := e.g.showPacketChanges(e.pkt.ID)
			defer v.closeWin()
			test.Tap(v.review.approve)
			e.g.busy.Wait()
			got := workGetPacket(t, e.g, e.pkt.ID).Packet
			if now := git("rev-parse", "main"); now != tip || got.State != store.PacketDone || got.Landed != nil || !v.review.land.Visible() {
				t.Fatalf("after Approve: main %s (was %s), %s, landed %+v, Land ▾ shown %v", now, tip, got.State, got.Landed, v.review.land.Visible())
			}

			v.landThrough(t, 0)
			subject := git("log", "-1", "--format=%s", got.Changes.To)
			for _, want := range []string{"Onto main (now at " + tip[:10] + "), by merge, the repository's default,\nfrom " + got.Changes.Branch + ".", "1 commit:",
				got.Changes.To[:10] + "  " + subject, "1 file:", "M  greet.go"} {
				if !strings.Contains(v.review.planText, want) {
					t.Errorf("the plan lacks %q:\n%s", want, v.review.planText)
				}
			}
			if now := git("rev-parse", "main"); now != tip {
				t.Fatalf("showing the plan moved main to %s", now)
			}
			test.Tap(dialogButton(t, v.win, labelLandConfirm))
			e.g.busy.Wait() // the landing, off the Fyne goroutine
			got = workGetPacket(t, e.g, e.pkt.ID).Packet
			if !conflict {
				if got.Landed == nil || !strings.Contains(git("show", "main:greet.go"), "Hello(name string)") || v.review.land.Visible() {
					t.Fatalf("landed %+v, main's greet.go %q, Land ▾ shown %v, status %q", got.Landed, git("show", "main:greet.go"), v.review.land.Visible(), v.status.Text)
				}
				return
			}
			if got.Landed != nil || !v.review.conflict.Visible() {
				t.Fatalf("landed %+v, conflict shown %v, status %q", got.Landed, v.review.conflict.Visible(), v.status.Text)
			}
			test.Tap(v.review.sendBack)
			got = workGetPacket(t, e.g, e.pkt.ID).Packet
			if got.State != store.PacketQueued || got.ReviewNotes != "rebase onto main and resolve: greet.go" {
				t.Fatalf("after Send back: %s, notes %q, status %q", got.State, got.ReviewNotes, v.status.Text)
			}
		})
	}
}

// On the real registry and git: the Work board's Approve records the
// verdict and main does not move; the packet waits in Done, unlanded.
func TestWorkApproveDoesNotLand(t *testing.T) {
	e := newChangesE2E(t)
	ctx := context.Background()
	tip, err := gitcmd.Run(ctx, e.repo, "rev-parse", "main")
	if err != nil {
		t.Fatal(err)
	}
	w := openBoard(t, e.g)
	w.on(func() { w.clickCard(e.pkt.ID) })
	w.on(func() {
		if w.approve.Hidden {
			t.Fatal("no Approve for a packet in review")
		}
		test.Tap(w.approve)
	})
	got := workGetPacket(t, e.g, e.pkt.ID).Packet
	now, err := gitcmd.Run(ctx, e.repo, "rev-parse", "main")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.PacketDone || got.Review == nil || got.Review.Verdict != store.VerdictApprove || got.Landed != nil || string(now) != string(tip) {
		t.Fatalf("after the board's Approve: %s, review %+v, landed %+v, main %s (was %s)", got.State, got.Review, got.Landed, now, tip)
	}
}
