package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Start agent on this packet: offered on a queued packet, it lists the
// profiles; the agent it starts holds the packet, and the Sessions window
// shows it.
func TestWorkStartAgentOnPacket(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	g, w, repoID := newWorkTest(t)
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Tidy the imports"})
	waitUntil(t, "the new packet listed", func() bool { return w.rowOf("Tidy the imports") >= 0 })
	w.selectTitle(t, "Tidy the imports")
	items := 0
	w.on(func() {
		if !w.startOnBtn.Visible() {
			t.Fatal("no Start agent on a queued packet")
		}
		test.Tap(w.startOnBtn)
		menu, ok := findIn(w.win.Canvas().Overlays().Top(), func(*widget.PopUpMenu) bool { return true })
		if !ok {
			t.Fatal("Start agent shows no menu of profiles")
		}
		items = len(menu.Items)
		w.win.Canvas().Overlays().Top().Hide()
		w.startOn("shell", w.detail.Packet)
	})
	if items == 0 {
		t.Error("the menu lists no profile")
	}
	g.busy.Wait()
	got := workGetPacket(t, g, p.ID).Packet
	if got.ReservedFor == "" || g.sessions == nil || g.sessions.selected != got.ReservedFor {
		t.Fatalf("after the start: packet held for %q, Sessions shows %v", got.ReservedFor, g.sessions != nil)
	}
	if a, ok := g.core.Agents().Get(got.ReservedFor); !ok || a.Info().RepositoryID != repoID {
		t.Errorf("no agent of the repository runs for session %s", got.ReservedFor)
	}
	if got.State != store.PacketQueued {
		t.Errorf("the packet is %s, want queued until the agent claims it", got.State)
	}
	w.reload()
	w.on(func() {
		if w.startOnBtn.Visible() || !strings.Contains(w.subtitle.Text, "held for session "+got.ReservedFor) {
			t.Errorf("a held packet: Start agent shown %v, subtitle %q", w.startOnBtn.Visible(), w.subtitle.Text)
		}
	})
}
