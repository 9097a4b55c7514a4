package app

import (
	"image"
	"image/draw"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

const (
	goldenPktQueuedHigh = "pkt_2c7d19e0b4a8f6531e90"
	goldenPktQueuedLow  = "pkt_8e03f5a7c21d9b46e0f2"
	goldenPktQueuedOld  = "pkt_f41a06d3e9c7b25a8d13"
	goldenPktInProgress = "pkt_5b92e8c04f1a7d36c2b8"
	goldenPktClaimed    = "pkt_0d6ec3a9175b2f84e6a1"
	goldenPktInReview   = "pkt_a3f17c8e52d0b964f7e5"
	goldenPktDone       = "pkt_6c08b2f4e91a3d57c0b3"
	goldenPktFailed     = "pkt_e7d4a1b06c3f29e85a4d"
	goldenPktCancelled  = "pkt_19b5f7e2d08c4a63b9f0"
)

// goldenWorkData is the Work board: packets in every state, one of them
// in review with its artifacts, history and a verdict.
func goldenWorkData() *goldenData {
	d := &goldenData{repos: goldenRepos()}
	created := func(at time.Time) store.Transition {
		return store.Transition{At: at, To: store.PacketQueued}
	}
	move := func(at time.Time, from, to store.PacketState, reason, session string) store.Transition {
		return store.Transition{At: at, From: from, To: to, Reason: reason, SessionID: session}
	}
	packet := func(id, repo, title string, state store.PacketState, seq uint64, prio, attempt int, age time.Duration) store.Packet {
		return store.Packet{ID: id, RepositoryID: repo, Title: title, State: state, Seq: seq, Priority: prio, Attempt: attempt,
			MaxAttempts: 3, CreatedAt: goldenAgo(age), UpdatedAt: goldenAgo(age), ExpectedArtifacts: []store.ExpectedArtifact{}, WriteScope: []string{},
			History: []store.Transition{created(goldenAgo(age))}}
	}

	review := packet(goldenPktInReview, goldenRepoSwitchboard, "Fix clipped labels in the Sessions header", store.PacketInReview, 6, 1, 2, 3*time.Hour)
	review.ReviewRequired = true
	review.UpdatedAt = goldenAgo(52 * time.Minute)
	review.Instructions = "The Stop and Kill buttons stretch to the height of the header, and long\n" +
		"reports run into each other in the side pane.\n\n" +
		"Done when: the goldens in app/testdata/sessions/ show neither, in both themes."
	review.ExpectedArtifacts = []store.ExpectedArtifact{{Name: "summary", Kind: "markdown"}, {Name: "patch", Kind: "diff"}, {Name: "screenshot", Kind: "png"}}
	review.WriteScope = []string{"app/sessions.go", "app/testdata/sessions/**"}
	review.Summary = "Centred the buttons beside the header and listed the reports as wrapped labels; both goldens redrawn."
	review.ReviewNotes = "Keep the buttons at their natural height, not stretched."
	review.History = append(review.History,
		move(goldenAgo(2*time.Hour+50*time.Minute), store.PacketQueued, store.PacketClaimed, "", "ses_6e1f0a9b3c2d87e45f10"),
		move(goldenAgo(2*time.Hour+49*time.Minute), store.PacketClaimed, store.PacketInProgress, "", "ses_6e1f0a9b3c2d87e45f10"),
		move(goldenAgo(2*time.Hour+20*time.Minute), store.PacketInProgress, store.PacketInReview, "completed", "ses_6e1f0a9b3c2d87e45f10"),
		move(goldenAgo(2*time.Hour+5*time.Minute), store.PacketInReview, store.PacketQueued, "request_changes: Keep the buttons at their natural height, not stretched.", ""),
		move(goldenAgo(65*time.Minute), store.PacketQueued, store.PacketClaimed, "", goldenSesEnded),
		move(goldenAgo(65*time.Minute), store.PacketClaimed, store.PacketInProgress, "", goldenSesEnded),
		move(goldenAgo(52*time.Minute), store.PacketInProgress, store.PacketInReview, "completed", goldenSesEnded),
	)
	summary := "Centred the Stop and Kill buttons beside the header; reports are wrapped labels in a scroll.\n\n- app/sessions.go: +6 -3"
	d.artifacts = map[string][]store.Artifact{goldenPktInReview: {
		{ID: "art_4e0c", PacketID: review.ID, Name: "summary", Kind: "markdown", Content: &summary, Size: int64(len(summary)),
			SHA256: strings.Repeat("3b", 32), SessionID: goldenSesEnded, CreatedAt: goldenAgo(53 * time.Minute)},
		{ID: "art_4e0d", PacketID: review.ID, Name: "patch", Kind: "diff", Path: "out/sessions-header.diff", Size: 5734,
			SHA256: "9f2c41e07a5db83c6e19f0a4b7d25c8e31f6a09b4c7e2d58a1f30b6c9e4d7a21", SessionID: goldenSesEnded, CreatedAt: goldenAgo(53 * time.Minute)},
	}}

	inProgress := packet(goldenPktInProgress, goldenRepoSwitchboard, "Snapshot tests for every window", store.PacketInProgress, 7, 1, 1, 40*time.Minute)
	inProgress.Lease = &store.Lease{ID: "lse_1", SessionID: goldenSesLive, ClaimedAt: goldenAgo(7 * time.Minute), ExpiresAt: goldenAgo(-8*time.Minute - 12*time.Second)}
	claimed := packet(goldenPktClaimed, goldenRepoInfra, "Retry the flaky keyring e2e test with a longer unlock timeout", store.PacketClaimed, 8, 0, 2, 5*time.Minute)
	claimed.Lease = &store.Lease{ID: "lse_2", SessionID: goldenSesExternal, ClaimedAt: goldenAgo(time.Minute), ExpiresAt: goldenAgo(-9 * time.Minute)}
	failed := packet(goldenPktFailed, goldenRepoSwitchboard, "Migrate the audit log to the v2 encoding", store.PacketFailed, 3, 0, 3, 50*time.Hour)
	failed.Attempt = 3

	d.packets = []store.Packet{
		packet(goldenPktQueuedLow, goldenRepoWebsite, "Document the audit export columns", store.PacketQueued, 11, 0, 0, 12*time.Minute),
		packet(goldenPktQueuedHigh, goldenRepoSwitchboard, "Golden images for the tray menu", store.PacketQueued, 10, 2, 0, 3*time.Hour),
		packet(goldenPktQueuedOld, goldenRepoInfra, "Bump fyne to v2.7.2 and redraw every golden image, in both themes, then look at them", store.PacketQueued, 2, 0, 0, 3*24*time.Hour),
		claimed, inProgress, review,
		packet(goldenPktDone, goldenRepoSwitchboard, "Rotate the client token from Settings", store.PacketDone, 4, 0, 1, 26*time.Hour),
		failed,
		packet(goldenPktCancelled, goldenRepoWebsite, "Try a GTK tray", store.PacketCancelled, 1, 0, 0, 5*24*time.Hour),
	}
	return d
}

// The main window's Work board at the smallest screen: the board with a
// packet in review selected, its detail scrolled to the end, then the New
// packet form being filled in.
func TestWorkGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		g := newGoldenGUI(t, a, goldenWorkData(), nil)
		w := openGoldenBoard(t, g)
		w.on(func() { w.clickCard(goldenPktInReview) })
		if w.selected != goldenPktInReview || !w.approve.Visible() {
			t.Fatalf("selected %q, approve shown %v", w.selected, w.approve.Visible())
		}
		test.AssertImageMatches(t, "work/board-"+name+".png", captureOf(w.win, g.sessions.boardView))
		// The wheel over the detail pane scrolls to its end: artifacts,
		// the verdict and the history.
		w.on(func() { test.Scroll(w.win.Canvas(), fyne.NewPos(900, 560), 0, -5000) })
		test.AssertImageMatches(t, "work/board-history-"+name+".png", captureOf(w.win, g.sessions.boardView))

		w.on(func() {
			w.repoFilter.SetSelected("switchboard")
			test.Tap(w.newPacket)
		})
		f := w.form
		if f == nil || f.repo.Selected != "switchboard" {
			t.Fatalf("the form did not open on the filtered repository: %+v", f)
		}
		focusAndType(w.win, f.title, "Golden images for the tray menu")
		focusAndType(w.win, f.instructions, "Draw the tray menu in both themes: idle, working and needs-you icons. Done when the goldens are committed and looked at.")
		focusAndType(w.win, f.expected, "summary:markdown, patch:diff")
		focusAndType(w.win, f.scope, "app/tray_golden_test.go\napp/testdata/tray/**")
		test.Tap(f.review)
		test.AssertImageMatches(t, "work/new-packet-"+name+".png", w.win.Canvas().Capture())
	})
}

// openGoldenBoard opens the main window on its Work board at 1366×768,
// the packets' ages counted from goldenNow.
func openGoldenBoard(t *testing.T, g *gui) *workWindow {
	w := openBoard(t, g)
	w.on(func() {
		g.sessions.win.Resize(fyne.NewSize(1366, 768))
		w.now, g.sessions.packet.now = goldenClock, goldenClock
		w.reload()
	})
	return w
}

// captureOf is the part of win's picture that o covers: the view a golden
// image is about, without the sidebar around it.
func captureOf(win fyne.Window, o fyne.CanvasObject) image.Image {
	img := win.Canvas().Capture()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	sc := win.Canvas().Scale()
	r := image.Rect(int(pos.X*sc), int(pos.Y*sc), int((pos.X+o.Size().Width)*sc), int((pos.Y+o.Size().Height)*sc)).Intersect(img.Bounds())
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

// focusAndType focuses e in win, as a click would, and types s.
func focusAndType(win fyne.Window, e fyne.Focusable, s string) {
	win.Canvas().Focus(e)
	test.Type(e, s)
}

// clickCard selects packet id's card in its column, as a click does.
func (w *workWindow) clickCard(id string) {
	if col, row, ok := w.find(id); ok {
		w.cols[col].list.Select(row)
	}
}
