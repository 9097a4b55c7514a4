package app

import (
	"bufio"
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/godbus/dbus/v5"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// TestTrayAttentionOnAgentNotification: an agent's own desktop notification (OSC 777 here,
// printed by a shell under the real supervisor) puts the tray in its "needs you" state,
// names the session, marks it "needs you" in Sessions, and is announced once as a desktop
// notification with the agent's title and body.
func TestTrayAttentionOnAgentNotification(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})
	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err := g.core.Agents().Launch(supervisor.LaunchSpec{SessionID: "ses_note", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	before := g.menuModel()
	if len(before.notes) != 0 {
		t.Fatalf("notes %+v before any notification", before.notes)
	}
	if err := s.Input([]byte(`printf '\033]777;notify;Shell;Pick a\tbranch\033\\'` + "\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent's notification", func() bool { return s.Attention() != nil })
	now := g.menuModel()
	if now.state != stateAttention || now.attention != "ses_note" || len(now.notes) != 1 {
		t.Fatalf("state %v, attention %q, notes %+v; want attention for ses_note", now.state, now.attention, now.notes)
	}
	if now.equal(before) {
		t.Error("the model did not change with a notification")
	}
	if b := statusBadge(s.Status()); b != "⚠ needs you" {
		t.Errorf("badge %q", b)
	}
	// The tab is a control character: the supervisor dropped it.
	test.AssertNotificationSent(t, fyne.NewNotification("sh: Shell", "Pick abranch"), func() { g.notifyAttention(before, now) })
	// The same notification is not announced twice.
	test.AssertNotificationSent(t, nil, func() { g.notifyAttention(now, g.menuModel()) })

	// The person types: the agent no longer waits.
	s.Input([]byte("\r"))
	if m := g.menuModel(); len(m.notes) != 0 || s.Attention() != nil {
		t.Errorf("after input: notes %+v, attention %+v", m.notes, s.Attention())
	}
}

func TestAgentNoteNotification(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tt := range []struct {
		name string
		note agentNote
		want *fyne.Notification
	}{
		{"OSC 9 has no title", agentNote{session: "s", Attention: supervisor.Attention{Body: "done", Seq: 1}}, fyne.NewNotification("claude in demo needs you", "done")},
		{"OSC 777", agentNote{session: "s", Attention: supervisor.Attention{Title: "Codex", Body: "Approve?", Seq: 1}}, fyne.NewNotification("claude in demo: Codex", "Approve?")},
		{"bounded", agentNote{session: "s", Attention: supervisor.Attention{Title: long, Body: long}}, fyne.NewNotification(shorten("claude in demo: "+long, 200), shorten(long, 200))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.note.notification("claude in demo")
			if got.Title != tt.want.Title || got.Content != tt.want.Content {
				t.Errorf("notification %q / %q; want %q / %q", got.Title, got.Content, tt.want.Title, tt.want.Content)
			}
		})
	}
}

// sentNote is a notification a recordingNotifier was given.
type sentNote struct {
	n    *fyne.Notification
	open func()
}

// recordingNotifier keeps the notifications sent, with their actions.
type recordingNotifier struct {
	mu   sync.Mutex
	sent []sentNote
}

func (r *recordingNotifier) send(n *fyne.Notification, open func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, sentNote{n, open})
}

// A question's notification names the agent as the sidebar does and its
// repository; clicking it opens the main window on that agent, with the
// answer box under that question (not the same agent's older one, nor
// another agent's) and the keyboard in it, whether the window was closed
// or showed something else.
func TestQuestionNotificationOpensIt(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	rec := &recordingNotifier{}
	g.notifier = rec
	reg, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	agent := func(name string) string {
		var s store.Session
		if err := g.core.Registry().DB().Update(context.Background(), func(tx *store.Tx) (err error) {
			s, err = tx.CreateSession(store.SessionSpec{Kind: store.SessionExternal, RepositoryID: reg.Repository.ID, Name: name})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	first, second := agent("Retry flaky landing"), agent("Fix the login form")
	older := report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: first, Text: "squash or merge?"}).QuestionID
	report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: second, Text: "which branch?"})
	before := g.menuModel()
	asked := report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: second, Text: "and which remote?"}).QuestionID
	g.notifyAttention(before, g.menuModel())
	if len(rec.sent) != 1 {
		t.Fatalf("%d notifications for one new question", len(rec.sent))
	}
	if got := rec.sent[0].n; got.Title != "Fix the login form in demo asks" || got.Content != "and which remote?" {
		t.Errorf("notification %q / %q", got.Title, got.Content)
	}
	if rec.sent[0].open == nil {
		t.Fatal("the notification opens nothing")
	}

	assertOpened := func(t *testing.T, session, question, text string) {
		t.Helper()
		w := g.sessions
		if w == nil || !w.agentView.Visible() || w.node != nodeAgent+session {
			t.Fatalf("the main window shows %q, not the agent %s", w.node, session)
		}
		c := w.questions
		if c.target != question {
			t.Errorf("the answer box answers %q, not %q", c.target, question)
		}
		if f := w.win.Canvas().Focused(); f != c.answer {
			t.Errorf("the keyboard is in %T, not the answer box", f)
		}
		// The box is laid out under that question's text.
		i := slices.IndexFunc(c.box.Objects, func(o fyne.CanvasObject) bool {
			l, ok := o.(*widget.Label)
			return ok && strings.HasSuffix(l.Text, "  "+text)
		})
		if i < 0 || i+1 >= len(c.box.Objects) || c.box.Objects[i+1] != c.answer {
			t.Errorf("the answer box is not under %q", text)
		}
	}
	t.Run("window closed", func(t *testing.T) {
		onUI(rec.sent[0].open)
		defer onUI(func() { g.sessions.win.Close() })
		assertOpened(t, second, asked, "and which remote?")
	})
	t.Run("window on something else", func(t *testing.T) {
		rec.sent = nil
		g.notifyAttention(trayModel{}, g.menuModel())
		onUI(g.showMainBoard)
		defer onUI(func() { g.sessions.win.Close() })
		onUI(func() { g.sessions.win.Canvas().Unfocus() })
		i := slices.IndexFunc(rec.sent, func(s sentNote) bool { return s.n.Content == "squash or merge?" })
		if i < 0 || rec.sent[i].n.Title != "Retry flaky landing in demo asks" {
			t.Fatalf("notifications %+v", rec.sent)
		}
		onUI(rec.sent[i].open)
		assertOpened(t, first, older, "squash or merge?")
	})
}

// The freedesktop notifier, against a notification server on a private
// session bus: a notification carries a default action and the app's
// desktop entry; the server's ActionInvoked for it runs its action once; one
// from another program on the bus, posing as the server, runs nothing.
func TestDBusNotifierClick(t *testing.T) {
	test.NewTempApp(t) // fyne.Do runs the action
	addr := startSessionBus(t)
	server, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	fake := &fakeNotifyServer{got: make(chan fakeNotify, 4)}
	if err := server.Export(fake, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if r, err := server.RequestName(notifyBus, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v %v", notifyBus, r, err)
	}
	client, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	log, _ := newTestLogger()
	n, err := newDBusNotifier(client, log, fyneNotifier{})
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan string, 4)
	n.send(fyne.NewNotification("Fix the login form in demo asks", "which branch?"), func() { opened <- "asked" })
	n.send(fyne.NewNotification("Retry flaky landing in demo asks", "squash or merge?"), func() { opened <- "older" })
	var sent []fakeNotify
	for range 2 {
		sent = append(sent, <-fake.got)
	}
	if s := sent[0]; s.summary != "Fix the login form in demo asks" || s.body != "which branch?" ||
		!slices.Equal(s.actions, []string{notifyActionDefault, labelNotifyOpen}) || s.entry != AppID {
		t.Errorf("Notify(%+v)", s)
	}
	// Another program on the bus emits the server's signal for the
	// second notification: it is not the server, and nothing opens.
	impostor, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer impostor.Close()
	if err := impostor.Emit(notifyPath, notifyIface+".ActionInvoked", sent[1].id, notifyActionDefault); err != nil {
		t.Fatal(err)
	}
	// The person clicks the first.
	if err := server.Emit(notifyPath, notifyIface+".ActionInvoked", sent[0].id, notifyActionDefault); err != nil {
		t.Fatal(err)
	}
	if got := <-opened; got != "asked" {
		t.Fatalf("the click opened %q", got)
	}
	// A second click on it (some servers send the action twice) opens
	// nothing more; the other is still there to click.
	if err := server.Emit(notifyPath, notifyIface+".ActionInvoked", sent[0].id, notifyActionDefault); err != nil {
		t.Fatal(err)
	}
	if err := server.Emit(notifyPath, notifyIface+".ActionInvoked", sent[1].id, notifyActionOpen); err != nil {
		t.Fatal(err)
	}
	if got := <-opened; got != "older" {
		t.Fatalf("the second click opened %q", got)
	}
	select {
	case got := <-opened:
		t.Errorf("one more opened: %q", got)
	default:
	}
}

// fakeNotify is one Notify call the fake server answered.
type fakeNotify struct {
	id            uint32
	summary, body string
	actions       []string
	entry         string
}

// fakeNotifyServer is org.freedesktop.Notifications' Notify.
type fakeNotifyServer struct {
	mu   sync.Mutex
	last uint32
	got  chan fakeNotify
}

func (f *fakeNotifyServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.mu.Lock()
	f.last++
	id := f.last
	f.mu.Unlock()
	entry, _ := hints["desktop-entry"].Value().(string)
	f.got <- fakeNotify{id: id, summary: summary, body: body, actions: actions, entry: entry}
	return id, nil
}

// startSessionBus starts a private dbus-daemon for the test and returns
// its address; the test is skipped where there is none.
func startSessionBus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("no dbus-daemon:", err)
	}
	cmd := exec.Command(bin, "--session", "--nofork", "--print-address=1", "--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon's address: %v", err)
	}
	return strings.TrimSpace(addr)
}
