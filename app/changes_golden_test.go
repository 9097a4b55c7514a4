package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// The Changes view of a packet in review, on a small diff git wrote: a new
// script, a Go file with syntax colours, a rename, a deleted file and a
// binary one; then a comment on a line being written under one already
// made.
func TestChangesGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		f := &changesFake{diff: readSmallDiff(t)}
		g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
		v := g.showPacketChanges(changesPkt)
		defer v.closeWin()
		v.on(func() { v.win.Resize(fyne.NewSize(1366, 768)) })
		test.AssertImageMatches(t, "changes/review-"+name+".png", captureOf(v.win, v.content))

		for _, c := range []struct {
			n    int
			side string
			text string
		}{{6, "new", "Is strings needed for one Join?"}, {10, "new", ""}} {
			i := v.lineRow("cmd/main.go", c.n, c.side)
			test.Tap(v.shownLine(i))
			if c.text != "" {
				focusAndType(v.win, v.review.commentEntry, c.text)
				test.Tap(v.review.commentAdd)
			}
		}
		focusAndType(v.win, v.review.commentEntry, "Keep the one-name form as well.")
		test.AssertImageMatches(t, "changes/comment-"+name+".png", captureOf(v.win, v.content))
	})
}
