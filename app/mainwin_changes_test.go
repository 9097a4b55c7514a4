package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// An agent's Changes tab holds its live worktree's Changes view, in the
// window: on screen while the tab is chosen (so its refreshes read), off it
// on the Terminal tab; the same view when the tab is chosen again; and for
// an agent with no live worktree, a note that says why.
func TestMainWindowAgentChangesTab(t *testing.T) {
	a := test.NewTempApp(t)
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), &changesFake{diff: readSmallDiff(t)})
	onUI(func() { g.showSessions(goldenSesEnded) })
	w := g.sessions
	defer onUI(func() { w.win.Close() })
	windows := len(a.Driver().AllWindows())
	onUI(func() { w.tabs.Select(w.agentChangesTab) })
	var v *changesView
	onUI(func() {
		v = w.shownChanges
		if v == nil || v.src.sessionID != goldenSesEnded || !v.visible.Load() || len(v.files) != 5 ||
			len(w.agentChanges.Objects) != 1 || w.agentChanges.Objects[0] != v.content {
			t.Fatalf("the agent's Changes tab holds %v, view %+v", w.agentChanges.Objects, v)
		}
		if want := " · " + labelChangesWorktree; !strings.HasSuffix(v.title.Text, want) || strings.Contains(v.title.Text, goldenSesEnded) {
			t.Errorf("the view is titled %q, not the agent's name and %q", v.title.Text, want)
		}
	})
	if n := len(a.Driver().AllWindows()); n != windows {
		t.Errorf("%d windows with the Changes tab shown, %d before", n, windows)
	}
	onUI(func() { w.tabs.Select(w.termTab) })
	if v.visible.Load() || w.shownChanges != nil {
		t.Error("the Changes view is still on screen with the Terminal tab chosen")
	}
	onUI(func() { w.tabs.Select(w.agentChangesTab) })
	if w.shownChanges != v || !v.visible.Load() {
		t.Error("the Changes tab chosen again shows another view")
	}
	// The agent ends: its worktree's changes are on its packet now.
	onUI(func() { w.showChangesTab(store.Session{ID: goldenSesEnded, State: store.SessionEnded}) })
	if v.visible.Load() || len(w.agentChanges.Objects) != 1 || w.agentChanges.Objects[0] != w.noWorktree {
		t.Errorf("an agent with no live worktree: the tab holds %v, the view on screen %v", w.agentChanges.Objects, v.visible.Load())
	}
}
