package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// cardOf is the card on screen showing packet id, or nil.
func (w *workWindow) cardOf(id string) *workCard {
	c, _ := findIn(w.win.Content(), func(c *workCard) bool { return c.Visible() && c.packet.ID == id })
	return c
}

// dragCard drags packet id's card with the test driver, from its middle
// to the middle of column col's list.
func (w *workWindow) dragCard(t *testing.T, id string, col int) {
	t.Helper()
	d := w.g.app.Driver()
	c := w.cardOf(id)
	if c == nil {
		t.Fatalf("no card on screen for %s", id)
	}
	from := d.AbsolutePositionForObject(c).Add(fyne.NewPos(c.Size().Width/2, c.Size().Height/2))
	box := w.cols[col].box
	to := d.AbsolutePositionForObject(box).Add(fyne.NewPos(box.Size().Width/2, box.Size().Height/2))
	test.Drag(w.win.Canvas(), from, to.X-from.X, to.Y-from.Y)
}

// workAuthorCalls counts the audit records of the registry's requeues and
// cancels.
func workAuthorCalls(t *testing.T, g *gui) int {
	t.Helper()
	n := 0
	for _, m := range []string{"work.requeue", "work.cancel"} {
		res, err := invoke(g, mcpserver.MethodAuditQuery, store.AuditFilter{Method: m, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n += len(res.Records)
	}
	return n
}

// newBoardTest is the main window's Work board at the smallest screen's size with a failed packet
// (rejected in review) and a queued one, both on screen.
func newBoardTest(t *testing.T) (g *gui, w *workWindow, failed, queued store.Packet) {
	t.Helper()
	g, w, repoID := newWorkTest(t)
	w.on(func() { w.win.Resize(fyne.NewSize(1366, 768)) })
	failed = workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Rejected work", ReviewRequired: true})
	workRunAgent(t, g, repoID, nil)
	if _, err := invoke(g, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{PacketID: failed.ID, Verdict: store.VerdictReject}); err != nil {
		t.Fatal(err)
	}
	queued = workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Waiting work"})
	waitUntil(t, "both cards on the board", func() bool {
		ok := false
		w.on(func() {
			fc, _, f := w.find(failed.ID)
			qc, _, q := w.find(queued.ID)
			ok = f && q && fc == workColFailed && qc == workColQueued
		})
		return ok
	})
	return g, w, failed, queued
}

// Dragged to Queued, a failed packet is requeued; dragged to Failed /
// cancelled, a queued one is cancelled: through the registry, into the
// store, and the board follows.
func TestWorkBoardDrag(t *testing.T) {
	g, w, failed, queued := newBoardTest(t)
	before := workAuthorCalls(t, g)

	w.on(func() { w.dragCard(t, failed.ID, workColQueued) })
	if got := workGetPacket(t, g, failed.ID).Packet; got.State != store.PacketQueued {
		t.Fatalf("after the drag to Queued: %s", got.State)
	}
	w.on(func() { w.dragCard(t, queued.ID, workColFailed) })
	if got := workGetPacket(t, g, queued.ID).Packet; got.State != store.PacketCancelled {
		t.Fatalf("after the drag to Failed / cancelled: %s", got.State)
	}
	if n := workAuthorCalls(t, g) - before; n != 2 {
		t.Errorf("%d requeue and cancel calls, want 2", n)
	}
	w.on(func() {
		if c, _, _ := w.find(failed.ID); c != workColQueued {
			t.Errorf("the requeued card is in column %d", c)
		}
		if c, _, _ := w.find(queued.ID); c != workColFailed {
			t.Errorf("the cancelled card is in column %d", c)
		}
		if h := w.cols[workColFailed].head.Text; h != "Failed / cancelled (1)" {
			t.Errorf("heading %q", h)
		}
	})
}

// A drop the column does not take snaps back: no call, nothing changed.
func TestWorkBoardRefusedDrop(t *testing.T) {
	g, w, failed, queued := newBoardTest(t)
	before := workAuthorCalls(t, g)

	// Halfway: the ghost is under the pointer, the card still in its
	// column; let go over Done, it snaps back.
	w.on(func() {
		c := w.cardOf(queued.ID)
		box := w.cols[workColDone].box
		d := w.g.app.Driver()
		to := d.AbsolutePositionForObject(box).Add(fyne.NewPos(box.Size().Width/2, box.Size().Height/2))
		c.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{AbsolutePosition: to, Position: to.Subtract(d.AbsolutePositionForObject(c))}})
		gb := w.ghost.box
		mid := d.AbsolutePositionForObject(gb).Add(fyne.NewPos(gb.Size().Width/2, gb.Size().Height/2))
		if !gb.Visible() || w.ghost.title.Text != "Waiting work" || mid.Subtract(to).X > 1 || to.Subtract(mid).X > 1 || mid.Subtract(to).Y > 1 || to.Subtract(mid).Y > 1 {
			t.Errorf("ghost shown %v, %q, its middle at %v, the pointer at %v", gb.Visible(), w.ghost.title.Text, mid, to)
		}
		c.DragEnd()
		if gb.Visible() {
			t.Error("the ghost stays after the drop")
		}
	})
	for _, tc := range []struct {
		id  string
		col int
	}{
		{queued.ID, workColDone},
		{queued.ID, workColQueued}, // its own column
		{queued.ID, workColReview},
		{failed.ID, workColFailed},
		{failed.ID, workColWorking},
	} {
		w.on(func() { w.dragCard(t, tc.id, tc.col) })
	}
	if n := workAuthorCalls(t, g) - before; n != 0 {
		t.Errorf("%d calls for refused drops", n)
	}
	if got := workGetPacket(t, g, queued.ID).Packet; got.State != store.PacketQueued || len(got.History) != 1 {
		t.Errorf("the queued packet moved: %s, %d transitions", got.State, len(got.History))
	}
	if got := workGetPacket(t, g, failed.ID).Packet; got.State != store.PacketFailed {
		t.Errorf("the failed packet moved: %s", got.State)
	}
	w.on(func() {
		if c, _, _ := w.find(queued.ID); c != workColQueued {
			t.Errorf("the card did not snap back: column %d", c)
		}
	})
}

// Arrows move the highlight between cards and columns, Enter opens the
// highlighted card, N the New packet form.
func TestWorkBoardKeyboard(t *testing.T) {
	g, w, failed, queued := newBoardTest(t)
	repoID := queued.RepositoryID
	second := workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Later work"})
	waitUntil(t, "the third card", func() bool { return w.rowOf("Later work") >= 0 })

	// A key goes where the driver sends it: to the focused widget, or
	// with none to the canvas's handler.
	key := func(k fyne.KeyName) {
		w.on(func() {
			c := w.win.Canvas()
			if f := c.Focused(); f != nil {
				f.TypedKey(&fyne.KeyEvent{Name: k})
				return
			}
			c.OnTypedKey()(&fyne.KeyEvent{Name: k})
		})
	}
	cursor := func() string {
		id := ""
		w.on(func() { id = w.cursor })
		return id
	}
	for _, step := range []struct {
		key  fyne.KeyName
		want string
	}{
		{fyne.KeyDown, queued.ID},  // nothing highlighted: the first card
		{fyne.KeyDown, second.ID},  // down the queue
		{fyne.KeyDown, second.ID},  // its foot
		{fyne.KeyRight, failed.ID}, // over the empty columns
		{fyne.KeyRight, failed.ID}, // the last column
		{fyne.KeyLeft, queued.ID},  // back, to the same height where it can
		{fyne.KeyUp, queued.ID},    // its top
	} {
		key(step.key)
		if got := cursor(); got != step.want {
			t.Fatalf("after %s the cursor is on %s, want %s", step.key, got, step.want)
		}
	}
	w.on(func() {
		if w.selected != "" || w.cols[workColQueued].list == nil {
			t.Errorf("arrows opened %q", w.selected)
		}
	})
	key(fyne.KeyRight)
	key(fyne.KeyReturn)
	w.on(func() {
		if w.selected != failed.ID || w.title.Text != "Rejected work" || !w.detailUI.Visible() || w.requeue.Disabled() {
			t.Errorf("Enter: selected %q, title %q, requeue disabled %v", w.selected, w.title.Text, w.requeue.Disabled())
		}
		if w.form != nil {
			t.Error("the form is open before N")
		}
	})
	key(fyne.KeyN)
	w.on(func() {
		if w.form == nil {
			t.Fatal("N opened no form")
		}
		if w.form.repo.Selected != "demo" {
			t.Errorf("the form's repository %q", w.form.repo.Selected)
		}
		w.win.Canvas().Unfocus()
	})
	// Behind the open form the board stays as it was.
	key(fyne.KeyLeft)
	if got := cursor(); got != failed.ID {
		t.Errorf("an arrow behind the form moved the cursor to %s", got)
	}
}

// The tray's New packet… opens the main window's Work board with its form.
func TestTrayNewPacket(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	m := g.trayMenu(g.menuModel())
	labels := labels(m)
	if i := slices.Index(labels, labelNewPacket); i < 0 || labels[i-1] != labelWork {
		t.Fatalf("menu %q: no %q after %q", labels, labelNewPacket, labelWork)
	}
	item(t, m, labelNewPacket).Action()
	if g.sessions == nil || g.sessions.node != nodeBoard {
		t.Fatal("the main window is not on the Work board")
	}
	w := g.sessions.board
	defer w.closeWin()
	w.on(func() {
		if w.form == nil {
			t.Error("no New packet form")
		}
	})
}
