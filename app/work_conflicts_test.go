package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/workspace"
)

// When the person's main moves under a packet in review so that it no
// longer applies, its card and its detail say "Conflicts with main in
// greet.go", and Show conflicts shows the marked hunk.
func TestWorkConflictBadge(t *testing.T) {
	e := newChangesE2E(t)
	g := e.g
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		g.core.Registry().WatchConflicts(ctx, mcpserver.ConflictPoll)
	}()
	defer func() { cancel(); <-watched }()
	w := openBoard(t, g)
	w.on(func() { w.win.Resize(fyne.NewSize(1366, 768)) })

	gittest.WriteFile(t, filepath.Join(e.repo, "greet.go"), "package greet\n\nfunc Hello() string {\n\treturn \"hi\"\n}\n")
	if _, err := gitcmd.Run(ctx, e.repo, "commit", "-q", "-am", "hi"); err != nil {
		t.Fatal(err)
	}
	const badge = "Conflicts with main in greet.go"
	waitUntil(t, "the card's conflict badge", func() bool {
		ok := false
		w.on(func() {
			c := w.cardOf(e.pkt.ID)
			ok = c != nil && strings.HasPrefix(c.info.Text, badge+" · greet") && c.info.Importance == widget.DangerImportance
		})
		return ok
	})

	w.on(func() { w.clickCard(e.pkt.ID) })
	var show *widget.Button
	w.on(func() {
		if text := workLabelTexts(w.body); !strings.Contains(text, badge+" (main at ") {
			t.Errorf("the detail lacks the badge:\n%s", text)
		}
		show, _ = findIn(w.body, func(b *widget.Button) bool { return b.Text == labelWorkShowConflicts })
	})
	if show == nil {
		t.Fatal("no Show conflicts button in the detail")
	}
	test.Tap(show)
	w.on(func() {
		if w.conflictHunks == nil {
			t.Fatalf("no conflicts shown; status %q", w.status.Text)
		}
		text := workLabelTexts(w.conflictHunks)
		for _, want := range []string{"greet.go\n", "Merge conflict in greet.go", "<<<<<<< main\nfunc Hello() string {\n\treturn \"hi\"\n=======\n", "\treturn \"hello, \" + name\n>>>>>>> switchboard/"} {
			if !strings.Contains(text, want) {
				t.Errorf("the conflicts shown lack %q:\n%s", want, text)
			}
		}
	})
}

// Send back to agent sends a conflicting packet back to the queue with the
// conflict as its review, keeping its attempt.
func TestWorkConflictSendBack(t *testing.T) {
	e := newChangesE2E(t)
	g := e.g
	ctx := context.Background()
	gittest.WriteFile(t, filepath.Join(e.repo, "greet.go"), "package greet\n\nfunc Hello() string {\n\treturn \"hi\"\n}\n")
	if _, err := gitcmd.Run(ctx, e.repo, "commit", "-q", "-am", "hi"); err != nil {
		t.Fatal(err)
	}
	w := openBoard(t, g)
	before := workGetPacket(t, g, e.pkt.ID).Packet.Attempt
	// The watch does not run here: the detail is given its status as
	// work.get would carry it.
	row := w.conflictsRow(&mcpserver.PacketConflicts{PacketID: e.pkt.ID, TargetBranch: "main", Conflicts: workspace.Conflicts{Target: strings.Repeat("a", 40), Files: []string{"greet.go"}}})
	send, _ := findIn(row, func(b *widget.Button) bool { return b.Text == labelWorkSendBack })
	if send == nil {
		t.Fatal("no Send back to agent button")
	}
	w.on(func() { test.Tap(send) })
	got := workGetPacket(t, g, e.pkt.ID).Packet
	if got.State != "queued" || got.Attempt != before-1 || got.Review == nil || len(got.Review.Comments) != 1 || got.Review.Comments[0].Path != "greet.go" {
		t.Fatalf("after Send back: %s, attempt %d (was %d), review %+v; status %q", got.State, got.Attempt, before, got.Review, w.status.Text)
	}
	if aw := e.claim(); aw.Packet == nil || aw.Packet.ID != e.pkt.ID || workGetPacket(t, g, e.pkt.ID).Packet.Attempt != before {
		t.Errorf("the agent's next claim: %+v; attempt %d, want %d", aw.Packet, workGetPacket(t, g, e.pkt.ID).Packet.Attempt, before)
	}
}

// Rebase onto main, beside Send back to agent, runs work.rebase off the
// Fyne goroutine and says how it went: a packet whose main moved
// elsewhere is rebased onto a new branch, and one whose main changed its
// lines is refused naming the file, the packet and the agent's branch as
// they were.
func TestWorkConflictRebase(t *testing.T) {
	for _, conflicting := range []bool{false, true} {
		t.Run(map[bool]string{false: "clean", true: "conflict"}[conflicting], func(t *testing.T) {
			e := newChangesE2E(t)
			g := e.g
			ctx := context.Background()
			path, text := filepath.Join(e.repo, "other.go"), "package greet\n"
			if conflicting {
				path, text = filepath.Join(e.repo, "greet.go"), "package greet\n\nfunc Hello() string {\n\treturn \"hi\"\n}\n"
			}
			gittest.WriteFile(t, path, text)
			if _, err := gitcmd.Run(ctx, e.repo, "add", "-A"); err != nil {
				t.Fatal(err)
			}
			if _, err := gitcmd.Run(ctx, e.repo, "commit", "-q", "-m", "the person's"); err != nil {
				t.Fatal(err)
			}
			w := openBoard(t, g)
			before := workGetPacket(t, g, e.pkt.ID).Packet
			agentBranch := before.Changes.Branch
			agentTip := gitOut(t, e.repo, "rev-parse", agentBranch)
			// The watch does not run here: the detail is given its status
			// as work.get would carry it.
			row := w.conflictsRow(&mcpserver.PacketConflicts{PacketID: e.pkt.ID, TargetBranch: "main", Conflicts: workspace.Conflicts{Target: strings.Repeat("a", 40), Files: []string{"greet.go"}}})
			rebase, _ := findIn(row, func(b *widget.Button) bool { return b.Text == "Rebase onto main" })
			if rebase == nil {
				t.Fatal("no Rebase onto main button")
			}
			w.on(func() { test.Tap(rebase) })
			want := "Rebased onto main at "
			if conflicting {
				want = "Not rebased: "
			}
			waitUntil(t, "the rebase's outcome in the status line", func() bool {
				ok := false
				w.on(func() { ok = strings.HasPrefix(w.status.Text, want) && !rebase.Disabled() })
				return ok
			})
			got := workGetPacket(t, g, e.pkt.ID).Packet
			var status string
			w.on(func() { status = w.status.Text })
			if conflicting {
				if !strings.Contains(status, "greet.go") || got.Changes.Branch != agentBranch || got.Changes.To != before.Changes.To {
					t.Errorf("a conflicting rebase: status %q, changes %+v", status, got.Changes)
				}
			} else if got.Changes.Branch != agentBranch+"-rebased" || got.Changes.From != gitOut(t, e.repo, "rev-parse", "main") || !strings.Contains(status, agentBranch+"-rebased") {
				t.Errorf("after Rebase: status %q, changes %+v", status, got.Changes)
			}
			if now := gitOut(t, e.repo, "rev-parse", agentBranch); now != agentTip {
				t.Errorf("the agent's branch moved to %s", now)
			}
		})
	}
}

// gitOut is git's output, trimmed, for a test.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}
