package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// A session that worked on a packet is never offered as its reviewer.
func TestReviewerCandidates(t *testing.T) {
	p := store.Packet{Lease: &store.Lease{SessionID: "ses_b"}, Changes: &store.PacketChanges{SessionID: "ses_a"}}
	var got []string
	for _, s := range reviewerCandidates(p, []store.Session{{ID: "ses_a"}, {ID: "ses_b"}, {ID: "ses_c"}}) {
		got = append(got, s.ID)
	}
	if strings.Join(got, " ") != "ses_c" {
		t.Errorf("candidates %v; want ses_c only", got)
	}
}

// The packet's detail says who reviews it and changes it through
// work.assign_reviewer: here back to a person, the only choice in a
// repository with no session running.
func TestWorkReviewerChange(t *testing.T) {
	g, w, repoID := newWorkTest(t)
	workCreatePacket(t, g, mcpserver.WorkCreateArgs{RepositoryID: repoID, Title: "Pick a reviewer"})
	waitUntil(t, "the new packet listed", func() bool { return w.rowOf("Pick a reviewer") >= 0 })
	w.selectTitle(t, "Pick a reviewer")
	var change *widget.Button
	w.on(func() {
		if !contains(textsIn(w.facts), labelReviewerPerson) {
			t.Errorf("the detail's facts: %q; want the reviewer, a person", textsIn(w.facts))
		}
		b, ok := findIn(w.facts, func(b *widget.Button) bool { return b.Text == labelReviewerChange })
		if !ok {
			t.Fatal("no Change… beside the reviewer")
		}
		change = b
	})
	test.Tap(change)
	g.busy.Wait()
	var sel *widget.Select
	w.on(func() {
		top := w.win.Canvas().Overlays().Top()
		s, ok := findIn(top, func(*widget.Select) bool { return true })
		if !ok {
			t.Fatal("no choice of reviewer")
		}
		sel = s
	})
	if len(sel.Options) != 1 || sel.Selected != labelReviewerPerson {
		t.Errorf("choices %q (%q selected); want a person only", sel.Options, sel.Selected)
	}
	test.Tap(dialogButton(t, w.win, "Save"))
	g.busy.Wait()
	w.on(func() {
		if !strings.Contains(w.status.Text, "Reviewer saved") {
			t.Errorf("status %q after saving", w.status.Text)
		}
	})
}
