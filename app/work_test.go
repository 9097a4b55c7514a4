package app

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// newWorkTest opens the main window's Work board in a fresh GUI with one
// repository, "demo", and returns the board and the repository's id.
func newWorkTest(t *testing.T) (*gui, *workWindow, string) {
	t.Helper()
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	w := openBoard(t, g)
	repos, err := invoke(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil || len(repos.Repositories) != 1 {
		t.Fatalf("repositories: %v %v", repos, err)
	}
	return g, w, repos.Repositories[0].ID
}

// openBoard opens the main window on its Work board and returns the
// board; the window closes when the test ends.
func openBoard(t testing.TB, g *gui) *workWindow {
	t.Helper()
	fyne.DoAndWait(g.showMainBoard)
	w := g.sessions.board
	t.Cleanup(w.closeWin)
	return w
}

// closeWin closes the main window the board is in, unless it is closed.
func (w *workWindow) closeWin() {
	fyne.DoAndWait(func() {
		if s := w.g.sessions; s != nil && s.win == w.win {
			w.win.Close()
		}
	})
}

// on runs f as the Fyne goroutine would, never alongside the window's
// refresh.
func (w *workWindow) on(f func()) { fyne.DoAndWait(f) }

// rowTitles are the board's non-empty columns as text, left to right:
// each heading, then its cards as "title | info".
func (w *workWindow) rowTitles() []string {
	var out []string
	w.on(func() {
		for _, c := range w.cols {
			if len(c.cards) == 0 {
				continue
			}
			out = append(out, c.head.Text)
			for _, p := range c.cards {
				out = append(out, p.Title+" | "+w.rowInfo(p))
			}
		}
	})
	return out
}

// rowOf is the row in its column of the packet titled title, or -1.
func (w *workWindow) rowOf(title string) int {
	i := -1
	w.on(func() {
		for _, c := range w.cols {
			if j := slices.IndexFunc(c.cards, func(p store.Packet) bool { return p.Title == title }); j >= 0 {
				i = j
			}
		}
	})
	return i
}

func workGetPacket(t *testing.T, g *gui, id string) mcpserver.WorkGetResult {
	t.Helper()
	d, err := invoke(g, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: id})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func workCreatePacket(t *testing.T, g *gui, args mcpserver.WorkCreateArgs) store.Packet {
	t.Helper()
	res, err := invoke(g, mcpserver.MethodWorkCreate, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Packet
}

// selectTitle selects the packet titled title on the board, as a click does.
func (w *workWindow) selectTitle(t *testing.T, title string) {
	t.Helper()
	id := ""
	w.on(func() {
		for _, c := range w.cols {
			for _, p := range c.cards {
				if p.Title == title {
					id = p.ID
				}
			}
		}
	})
	if id == "" {
		t.Fatalf("no card %q in %q", title, w.rowTitles())
	}
	w.on(func() { w.clickCard(id) })
}

// The New packet form: typed in and created, the packet is queued with what
// was typed, listed under Queued and selected.
func TestWorkCreateThroughForm(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	var f *workForm
	w.on(func() {
		test.Tap(w.newPacket)
		f = w.form
	})
	if f == nil {
		t.Fatal("no form")
	}
	w.on(func() {
		if f.repo.Selected != "demo" {
			t.Errorf("the form's repository is %q, want the only one, demo", f.repo.Selected)
		}
		test.Type(f.title, "Write the release notes")
		test.Type(f.instructions, "Summarise the changes since v1.\nOne line each.")
		test.Type(f.expected, "notes:markdown, diffstat\nlog")
		test.Type(f.scope, "docs/**\nCHANGELOG.md")
		f.priority.SetText("")
		test.Type(f.priority, "7")
		f.maxAttempts.SetText("")
		test.Type(f.maxAttempts, "2")
		test.Tap(f.review)
		test.Tap(f.create)
	})
	if w.form != nil {
		t.Fatalf("the form stays open: %q", f.err.Text)
	}

	list, err := invoke(g, mcpserver.MethodWorkList, store.PacketFilter{RepositoryID: repoID})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Packets) != 1 {
		t.Fatalf("%d packets, want 1", len(list.Packets))
	}
	p := workGetPacket(t, g, list.Packets[0].ID).Packet
	want := []store.ExpectedArtifact{{Name: "notes", Kind: "markdown"}, {Name: "diffstat"}, {Name: "log"}}
	if p.Title != "Write the release notes" || p.State != store.PacketQueued || p.Priority != 7 || p.MaxAttempts != 2 ||
		!p.ReviewRequired || !slices.Equal(p.ExpectedArtifacts, want) ||
		!slices.Equal(p.WriteScope, []string{"docs/**", "CHANGELOG.md"}) ||
		p.Instructions != "Summarise the changes since v1.\nOne line each." {
		t.Errorf("created %+v", p)
	}

	rows := w.rowTitles()
	if len(rows) != 2 || rows[0] != "Queued (1)" || !strings.HasPrefix(rows[1], "Write the release notes | demo · P7 · attempt 0/2 · ") {
		t.Errorf("rows %q", rows)
	}
	w.on(func() {
		if w.selected != p.ID || w.title.Text != p.Title || !strings.HasPrefix(w.subtitle.Text, "queued · demo · ") {
			t.Errorf("detail: selected %q, title %q, subtitle %q", w.selected, w.title.Text, w.subtitle.Text)
		}
		if !w.approve.Hidden {
			t.Error("Approve shows for a queued packet")
		}
		if w.cancel.Disabled() || !w.requeue.Disabled() {
			t.Error("a queued packet is cancelled, not requeued")
		}
	})
}

// What the registry refuses stays in the form, with its code.
func TestWorkFormShowsDenial(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	var f *workForm
	w.on(func() {
		test.Tap(w.newPacket)
		f = w.form
		test.Type(f.title, "Bad scope")
		test.Type(f.scope, "../outside/**")
		test.Tap(f.create)
	})
	w.on(func() {
		if w.form != f || f.err.Hidden || !strings.Contains(f.err.Text, "invalid_argument") {
			t.Errorf("form open %v, error %q (hidden %v)", w.form == f, f.err.Text, f.err.Hidden)
		}
		// A number that is none is caught before the call.
		f.scope.SetText("")
		f.priority.SetText("high")
		test.Tap(f.create)
		if !strings.Contains(f.err.Text, "priority must be a whole number") {
			t.Errorf("error %q", f.err.Text)
		}
	})
	if list, err := invoke(g, mcpserver.MethodWorkList, store.PacketFilter{RepositoryID: repoID}); err != nil || len(list.Packets) != 0 {
		t.Errorf("packets %v, %v", list.Packets, err)
	}
}

// Cancel and Requeue, each through its reason prompt.
func TestWorkCancelAndRequeue(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Tidy the imports"})
	waitUntil(t, "the new packet listed", func() bool { return w.rowOf("Tidy the imports") >= 0 })
	w.selectTitle(t, "Tidy the imports")

	w.on(func() {
		test.Tap(w.cancel)
		test.Type(w.prompt.entry, "not needed after all")
		test.Tap(w.prompt.ok)
	})
	got := workGetPacket(t, g, p.ID).Packet
	if got.State != store.PacketCancelled || got.History[len(got.History)-1].Reason != "not needed after all" {
		t.Fatalf("after Cancel: %s, history %+v", got.State, got.History)
	}
	w.on(func() {
		if w.prompt != nil {
			t.Error("the prompt stays open")
		}
		if !w.cancel.Disabled() || w.requeue.Disabled() {
			t.Error("a cancelled packet is requeued, not cancelled")
		}
		if !slices.Contains(w.rowTitlesLocked(), "Failed / cancelled (1)") {
			t.Errorf("rows %q", w.rowTitlesLocked())
		}
	})

	w.on(func() {
		test.Tap(w.requeue)
		test.Tap(w.prompt.ok)
	})
	if got := workGetPacket(t, g, p.ID).Packet; got.State != store.PacketQueued {
		t.Fatalf("after Requeue: %s", got.State)
	}
	w.on(func() {
		if w.selected != p.ID || !strings.HasPrefix(w.subtitle.Text, "queued") {
			t.Errorf("selected %q, subtitle %q", w.selected, w.subtitle.Text)
		}
	})
}

// rowTitlesLocked are the headings of the board's non-empty columns.
func (w *workWindow) rowTitlesLocked() []string {
	var out []string
	for _, c := range w.cols {
		if len(c.cards) > 0 {
			out = append(out, c.head.Text)
		}
	}
	return out
}

// workAgentCall invokes a method as an agent would, for the operator-run
// session sid (the operator may act for any live session).
func workAgentCall(t *testing.T, g *gui, method string, args any) mcpserver.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res := g.core.Registry().Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportMCP, method, b)
	if res.Err != nil {
		t.Fatalf("%s: %v", method, res.Err)
	}
	return res
}

// workRunAgent claims the repository's packet, publishes its artifacts and
// completes it, as an agent does.
func workRunAgent(t *testing.T, g *gui, repoID string, content map[string]string) {
	t.Helper()
	ses := workAgentCall(t, g, "session.report", mcpserver.ReportArgs{Kind: "ready", RepositoryID: repoID}).Value.(mcpserver.ReportResult).SessionID
	aw := workAgentCall(t, g, "work.await_packet", mcpserver.AwaitArgs{RepositoryID: repoID, SessionID: ses, WaitSeconds: 1}).Value.(mcpserver.AwaitResult)
	if aw.Packet == nil {
		t.Fatal("no packet claimed")
	}
	lease := mcpserver.LeaseArgs{PacketID: aw.Packet.ID, SessionID: ses, LeaseID: aw.LeaseID}
	workAgentCall(t, g, "work.ack", lease)
	for name, c := range content {
		workAgentCall(t, g, "artifact.publish", mcpserver.PublishArgs{PacketID: aw.Packet.ID, SessionID: ses, LeaseID: aw.LeaseID, Name: name, Kind: "text", Content: &c})
	}
	workAgentCall(t, g, "work.complete", mcpserver.CompleteArgs{PacketID: aw.Packet.ID, SessionID: ses, LeaseID: aw.LeaseID, Summary: "done as asked"})
}

// A packet an agent completes with review required shows in review, its
// artifact checked off and previewed; Approve makes it done.
func TestWorkReviewApprove(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Explain the lease fencing",
		ExpectedArtifacts: []store.ExpectedArtifact{{Name: "answer", Kind: "text"}}, ReviewRequired: true})
	waitUntil(t, "the new packet listed", func() bool { return w.rowOf("Explain the lease fencing") >= 0 })
	w.selectTitle(t, "Explain the lease fencing")
	workRunAgent(t, g, repoID, map[string]string{"answer": "Every claim gets a new lease id."})

	waitUntil(t, "the packet in review", func() bool {
		ok := false
		w.on(func() {
			ok = slices.Contains(w.rowTitlesLocked(), "In review (1)") && w.detail.Packet.State == store.PacketInReview
		})
		return ok
	})
	w.on(func() {
		if w.approve.Hidden || w.changes.Hidden || w.reject.Hidden {
			t.Error("the verdict buttons are hidden for a packet in review")
		}
		text := workLabelTexts(w.body)
		for _, want := range []string{"Expected artifacts (1 of 1 published)", "Every claim gets a new lease id.", "done as asked", "Artifacts (1)"} {
			if !strings.Contains(text, want) {
				t.Errorf("the detail lacks %q:\n%s", want, text)
			}
		}
		test.Tap(w.approve)
	})
	got := workGetPacket(t, g, p.ID).Packet
	if got.State != store.PacketDone {
		t.Fatalf("after Approve: %s", got.State)
	}
	w.on(func() {
		if !w.approve.Hidden || !slices.Contains(w.rowTitlesLocked(), "Done (1)") {
			t.Errorf("approve hidden %v, rows %q", w.approve.Hidden, w.rowTitlesLocked())
		}
		if !strings.Contains(workLabelTexts(w.body), "approve") {
			t.Errorf("no verdict shown:\n%s", workLabelTexts(w.body))
		}
	})
}

// Request changes needs notes, and sends the packet back to the queue with
// them.
func TestWorkRequestChanges(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	p := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Rename the flag", ReviewRequired: true})
	workRunAgent(t, g, repoID, nil)
	waitUntil(t, "the packet listed", func() bool { return w.rowOf("Rename the flag") >= 0 })
	w.selectTitle(t, "Rename the flag")
	w.on(func() {
		test.Tap(w.changes)
		test.Tap(w.prompt.ok)
		if w.prompt == nil || w.prompt.err.Hidden {
			t.Error("empty notes were accepted")
		}
		test.Type(w.prompt.entry, "Keep the old name as an alias.")
		test.Tap(w.prompt.ok)
	})
	got := workGetPacket(t, g, p.ID).Packet
	if got.State != store.PacketQueued || got.ReviewNotes != "Keep the old name as an alias." {
		t.Errorf("after Request changes: %s, notes %q", got.State, got.ReviewNotes)
	}
}

// A packet created elsewhere while the window is open shows without a tap.
func TestWorkLiveUpdate(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	if rows := w.rowTitles(); len(rows) != 0 {
		t.Fatalf("rows %q", rows)
	}
	workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "From the CLI", Priority: 2})
	waitUntil(t, "the packet listed", func() bool { return w.rowOf("From the CLI") >= 0 })
	workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Urgent", Priority: 9})
	waitUntil(t, "the second packet listed", func() bool { return w.rowOf("Urgent") >= 0 })
	rows := w.rowTitles()
	if rows[0] != "Queued (2)" || !strings.HasPrefix(rows[1], "Urgent") {
		t.Errorf("the queue is not in claim order: %q", rows)
	}
	w.closeWin()
	if g.sessions != nil {
		t.Error("the closed window is still referenced")
	}
}

// The repository filter narrows the list.
func TestWorkRepositoryFilter(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "other"}); err != nil {
		t.Fatal(err)
	}
	workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "In demo"})
	waitUntil(t, "the packet listed", func() bool { return w.rowOf("In demo") >= 0 })
	w.on(func() { w.repoFilter.SetSelected("other") })
	if w.rowOf("In demo") >= 0 {
		t.Errorf("filtered on other, rows %q", w.rowTitles())
	}
	w.on(func() { w.repoFilter.SetSelected(labelWorkAllRepos) })
	if w.rowOf("In demo") < 0 {
		t.Errorf("all repositories, rows %q", w.rowTitles())
	}
}

// workLabelTexts joins the texts of the labels under o.
func workLabelTexts(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *widget.Label:
			b.WriteString(o.Text + "\n")
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}
