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
	g.showWork()
	w := g.work
	defer w.on(func() { w.win.Close() })
	w.on(func() { w.win.Resize(fyne.NewSize(1200, 700)) })

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
	g.showWork()
	w := g.work
	defer w.on(func() { w.win.Close() })
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
