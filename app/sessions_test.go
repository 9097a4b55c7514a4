package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// The tray's path to a terminal: Start agent ▸ Shell ▸ repository opens the
// Sessions window on the new agent; what is typed into its terminal widget
// reaches the shell, and the shell's answer appears on the emulated screen.
func TestStartShellAndTypeIntoIt(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	t.Setenv("SHELL", "/bin/sh")
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	m := g.trayMenu(g.menuModel())
	onUI(item(t, item(t, m, labelStartAgent).ChildMenu, "Shell").ChildMenu.Items[0].Action)

	var w *sessionsWindow
	waitUntil(t, "the Sessions window on the new agent", func() bool {
		w = g.sessions
		return w != nil && w.selected != ""
	})
	var term *termview.Terminal
	waitUntil(t, "the terminal widget", func() bool {
		if len(w.termBox.Objects) == 0 {
			return false
		}
		term, _ = w.termBox.Objects[0].(*termview.Terminal)
		return term != nil
	})
	agent, _ := g.core.Agents().Get(w.selected)
	waitUntil(t, "the shell's prompt", func() bool { return strings.TrimSpace(agent.Terminal().Text()) != "" })

	onUI(func() { test.Type(term, "echo hi$((40+2))\r") })
	waitUntil(t, "hi42 on the emulator screen", func() bool { return strings.Contains(agent.Terminal().Text(), "hi42") })
	waitUntil(t, "hi42 painted in the widget", func() bool {
		var painted string
		onUI(func() { painted = term.Text() })
		return strings.Contains(painted, "hi42")
	})

	// Stop is enabled once the session's detail is shown, which loads on
	// its own: a tap before then would do nothing.
	waitUntil(t, "Stop enabled", func() bool { return !w.stop.Disabled() })
	if got := w.status.Text; !strings.Contains(got, " · SWITCHBOARD_PORT 4") {
		t.Errorf("the live session's status line lacks its port block: %q", got)
	} else if strings.Contains(got, permissionText(profile.PermissionAsk)) {
		t.Errorf("a shell, which has no permission modes, is said to %q: %q", permissionText(profile.PermissionAsk), got)
	} else if want := statusBadge(agent.Status()); !strings.HasPrefix(got, want) && !strings.HasPrefix(got, statusBadge(supervisor.StatusRunning)) {
		// The line begins with what the sidebar says of the agent, not
		// the session's record ("running" beside an idle agent).
		t.Errorf("the status line does not begin with the agent's status %q: %q", want, got)
	}
	onUI(func() { test.Tap(w.copyID) })
	if got := g.app.Clipboard().Content(); got != w.selected || w.copyID.Text != "Copied" {
		t.Errorf("Copy id put %q on the clipboard (want %q) and says %q", got, w.selected, w.copyID.Text)
	}
	onUI(func() { test.Tap(w.stop) })
	waitUntil(t, "the agent stopped", func() bool { return agent.Exit() != nil })
	onUI(w.win.Close)
	if g.sessions != nil {
		t.Error("the closed window is still referenced")
	}
}

// onUI runs f as the real driver runs a click or a key: on the UI
// goroutine, one at a time with what other goroutines hand to fyne.Do. A
// tap made straight from the test's goroutine could paint a widget while an
// agent's frame is painting it.
func onUI(f func()) { fyne.DoAndWait(f) }

// Selection is identity: the highlighted row stays on the session shown
// when new sessions push it down the list, and the window keeps showing
// that session.
func TestSessionsSelectionFollowsTheSession(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	open := func() string { return createExternalSession(t, g, repo.Repository.ID) }
	first := open()
	open()
	g.showSessions(first)
	w := g.sessions
	if got := w.lit; got != nodeAgent+first {
		t.Fatalf("the highlighted row %q is not the session shown (%s)", got, first)
	}
	for range 3 {
		open()
	}
	w.reload()
	if got := w.lit; got != nodeAgent+first || w.selected != first {
		t.Errorf("after three new sessions the highlight is on %q, the window shows %s; want %s's row", got, w.selected, first)
	}
	// A click on the highlighted row keeps the same session.
	w.tree.OnSelected(nodeAgent + first)
	if w.selected != first {
		t.Errorf("clicking the highlighted row showed %s, not %s", w.selected, first)
	}
}

// A session with a question open reads "needs you" until it is answered,
// whatever its screen shows meanwhile.
func TestSessionsNeedsYouWhileAQuestionWaits(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	id := openReportingSession(t, g)
	asked := report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: id, Text: "which branch?"})
	g.showSessions(id)
	w := g.sessions
	s := w.sessions[slices.IndexFunc(w.sessions, func(s store.Session) bool { return s.ID == id })]
	if b := w.badge(s); b != statusBadge(supervisor.StatusNeedsInput) {
		t.Errorf("with a question open the session reads %q", b)
	}
	if _, err := invoke(g, mcpserver.MethodSessionAnswer, mcpserver.AnswerArgs{QuestionID: asked.QuestionID, Answer: "main"}); err != nil {
		t.Fatal(err)
	}
	w.reload()
	if b := w.badge(s); b == statusBadge(supervisor.StatusNeedsInput) {
		t.Errorf("once answered the session still reads %q", b)
	}
}

// createExternalSession opens an external session in repository repoID,
// as an agent connecting by itself would, and returns its id.
func createExternalSession(t *testing.T, g *gui, repoID string) string {
	t.Helper()
	var s store.Session
	if err := g.core.Registry().DB().Update(context.Background(), func(tx *store.Tx) (err error) {
		s, err = tx.CreateSession(store.SessionSpec{Kind: store.SessionExternal, RepositoryID: repoID})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return s.ID
}
