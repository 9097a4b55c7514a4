package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Selection is identity in the sidebar: a packet, then an agent, stays the
// highlighted row and the item shown while agents start and packets
// arrive above and below it.
func TestMainWindowSelectionFollowsTheItem(t *testing.T) {
	g, repoID := guiWithRepo(t)
	openSession := func() string { return createExternalSession(t, g, repoID) }
	newPacket := func(title string) string {
		return workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: title}).ID
	}
	openSession()
	agent := openSession()
	newPacket("first")
	packet := newPacket("second")

	g.showMain()
	w := g.sessions
	defer w.win.Close()
	for _, tt := range []struct {
		name string
		node string
	}{
		{"packet", nodePacket + packet},
		{"agent", nodeAgent + agent},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The person's click.
			w.reselectTo(tt.node)
			if w.lit != tt.node || w.node != tt.node {
				t.Fatalf("clicked %s: highlighted %q, shown %q", tt.node, w.lit, w.node)
			}
			for range 3 {
				openSession()
				newPacket("later")
			}
			w.reload()
			if w.lit != tt.node || w.node != tt.node {
				t.Errorf("after new agents and packets the highlight is on %q, the centre shows %q; want %q", w.lit, w.node, tt.node)
			}
			// A click on the highlighted row keeps the same item.
			w.tree.OnSelected(tt.node)
			if w.node != tt.node {
				t.Errorf("clicking the highlighted row showed %q", w.node)
			}
		})
	}
	if w.packet.selected != packet {
		t.Errorf("the packet view shows %q, not %q", w.packet.selected, packet)
	}
	if w.selected != agent {
		t.Errorf("the agent view shows %q, not %q", w.selected, agent)
	}
}

// guiWithRepo is a GUI over a registry with one repository, "demo", and
// that repository's id.
func guiWithRepo(t *testing.T) (*gui, string) {
	t.Helper()
	log, _ := newTestLogger()
	g := newTestGUI(t, test.NewTempApp(t), &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	return g, repo.Repository.ID
}

// reselectTo is a click on the sidebar's row id.
func (w *sessionsWindow) reselectTo(id string) {
	for p := w.model.parentOf(id); p != ""; p = w.model.parentOf(p) {
		w.tree.OpenBranch(p)
	}
	w.tree.Select(id)
}

// A question arriving shows the questions' column with the keyboard in the
// answer box, even while the person was typing into a terminal; the column
// goes once it is answered.
func TestMainWindowQuestionTakesTheFocus(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	id := openReportingSession(t, g)
	g.showSessions(id)
	w := g.sessions
	defer w.win.Close()
	if w.questions.content.Visible() {
		t.Fatal("the questions' column shows with no question waiting")
	}
	w.win.Canvas().Unfocus()
	asked := report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: id, Text: "which branch?"})
	w.reload()
	if !w.questions.content.Visible() {
		t.Fatal("the questions' column is hidden with a question waiting")
	}
	if f := w.win.Canvas().Focused(); f != w.questions.answer {
		t.Fatalf("the keyboard is in %T, not the answer box", f)
	}
	if w.questions.target != asked.QuestionID {
		t.Errorf("the answer box answers %q, not %q", w.questions.target, asked.QuestionID)
	}
	// A reload with nothing new leaves the keyboard where the person put it.
	w.win.Canvas().Unfocus()
	w.reload()
	if f := w.win.Canvas().Focused(); f == w.questions.answer {
		t.Error("a reload took the keyboard again for a question already shown")
	}
	// Opened on the agent that asks (the tray's "needs you"), the window
	// gives the keyboard to the answer box.
	w.win.Canvas().Unfocus()
	g.showSessions(id)
	if f := w.win.Canvas().Focused(); f != w.questions.answer {
		t.Errorf("opened on the agent that asks, the keyboard is in %T", f)
	}
	test.Type(w.questions.answer, "main")
	w.questions.sendAnswer()
	if w.questions.content.Visible() {
		t.Error("the questions' column still shows once the question was answered")
	}
}

// A repository's row shows its settings: a new name, base branch, landing
// mode and setup command are saved together, and what the form does not
// show (its isolation) is kept.
func TestMainWindowRepositorySettings(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	reg, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	id := reg.Repository.ID
	if _, err := invoke(g, mcpserver.MethodRepositoryConfigure, mcpserver.RepositoryConfigureArgs{RepositoryID: id,
		RepositorySettings: store.RepositorySettings{Isolation: store.IsolationNone}}); err != nil {
		t.Fatal(err)
	}
	g.showMain()
	w := g.sessions
	defer w.win.Close()
	w.reselectTo(nodeRepo + id)
	if !w.repoView.Visible() || w.repo.name.Text != "demo" {
		t.Fatalf("the repository's row shows %q (view shown: %v)", w.repo.name.Text, w.repoView.Visible())
	}
	w.repo.name.SetText("website")
	w.repo.base.SetText("trunk")
	w.repo.landing.SetSelected(string(store.LandingSquash))
	w.repo.setup.SetText("make deps")
	w.repo.save()
	list, err := invoke(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	r := list.Repositories[0]
	if r.Name != "website" || r.Base != "trunk" || r.Landing != store.LandingSquash || r.Setup != "make deps" || r.Isolation != store.IsolationNone {
		t.Errorf("saved as %+v", r)
	}
	if got := w.model.rows[nodeRepo+id].text; got != "website" {
		t.Errorf("the sidebar names it %q", got)
	}
}

// A packet shown while its group is closed (picked on the Work board)
// stays the highlighted row through reloads, though the sidebar has not
// made its group's rows.
func TestMainWindowSelectionInAClosedGroup(t *testing.T) {
	g, repoID := guiWithRepo(t)
	newPacket := func(title string) string {
		return workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: title}).ID
	}
	packet := newPacket("shown")
	g.showMain()
	w := g.sessions
	defer w.win.Close()
	node := nodePacket + packet
	group := w.model.parentOf(node)
	if group == "" || w.tree.IsBranchOpen(group) {
		t.Fatalf("the packet's group is %q, open: %v; want a closed one", group, w.tree.IsBranchOpen(group))
	}
	w.selectNode(node)
	for range 3 {
		newPacket("later")
		w.reload()
		if w.lit != node || w.node != node || w.packet.selected != packet {
			t.Fatalf("highlighted %q, shown %q (packet view on %q); want %q", w.lit, w.node, w.packet.selected, node)
		}
	}
	if _, made := w.model.rows[node]; made {
		t.Error("the rows of a closed group were made")
	}
}

// A live terminal whose tab is hidden (Changes or Reports shown) is not
// painted at each frame, which would have the window painted 30 times a
// second with nothing new to see: its newest screen is held, and painted
// when the Terminal tab is shown again.
func TestMainWindowHiddenTerminalIsNotPainted(t *testing.T) {
	dir := t.TempDir()
	sv := supervisor.New(supervisor.Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}})
	t.Cleanup(func() { sv.Close(context.Background()) })
	const id = "ses_00000000000000000001"
	agent, err := sv.Launch(supervisor.LaunchSpec{SessionID: id, RepositoryID: "rep_0", Dir: dir, Endpoint: testEndpoint, Token: "unused",
		Profile: profile.Profile{ID: "shell", Name: "Shell", Command: "/bin/sh", Args: []string{"-c", `while read l; do echo "got $l"; done`},
			Prompt: profile.PromptNone}})
	if err != nil {
		t.Fatal(err)
	}
	s := store.Session{ID: id, Kind: store.SessionSupervised, RepositoryID: "rep_0", Profile: "shell", State: store.SessionRunning, StartedAt: time.Now()}
	d := &goldenData{repos: []store.Repository{{ID: "rep_0", Name: "demo", Path: dir}}, sessions: []store.Session{s},
		details: map[string]mcpserver.SessionDetail{id: {Session: s, Questions: []store.Question{}}}}
	g := newGoldenGUI(t, test.NewTempApp(t), d, sv)
	g.showSessions(id)
	w := g.sessions
	defer w.win.Close()
	term := w.termBox.Objects[0].(*termview.Terminal)
	onUI := func(f func() bool) (ok bool) {
		fyne.DoAndWait(func() { ok = f() })
		return ok
	}
	waitUntil(t, "the first screen painted", func() bool { return onUI(func() bool { return term.Snapshot() != nil }) })

	var shown uint64
	fyne.DoAndWait(func() {
		w.tabs.SelectIndex(1)
		shown = term.Snapshot().Seq
	})
	if err := agent.Input([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent's answer held for the hidden terminal", func() bool {
		if !strings.Contains(agent.Terminal().Text(), "got hello") {
			return false
		}
		seq := agent.Terminal().Seq()
		return onUI(func() bool { return w.held.snap != nil && w.held.snap.Seq == seq })
	})
	fyne.DoAndWait(func() {
		if got := term.Snapshot().Seq; got != shown {
			t.Errorf("the hidden terminal was painted: screen %d, %d when hidden", got, shown)
		}
		w.tabs.SelectIndex(0)
		if !strings.Contains(term.Text(), "got hello") {
			t.Errorf("shown again, the terminal reads:\n%s", term.Text())
		}
	})
}
