package app

// Who judges a packet: a person (the default), or a session a person made
// its reviewer, the one session that may then give it a verdict. A session
// that worked on the packet is never offered (work.assign_reviewer refuses
// it too).

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Words of the reviewer control, also what the tests look for.
const (
	labelReviewerPerson = "A person (you)"
	labelReviewerChange = "Change…"
	titleReviewer       = "Who reviews this packet"
	textReviewer        = "A session made the reviewer is the one agent that may approve, request changes or reject. One that worked on the packet is not offered."
)

// reviewerItem is the detail's Reviewer line: who judges p, and, while p
// can still be judged, a button to change it.
func (w *workWindow) reviewerItem(p store.Packet) *widget.FormItem {
	who := labelReviewerPerson
	if p.Reviewer != "" {
		who = "session " + p.Reviewer
	}
	line := workWrapped(who)
	if p.Landed != nil || p.State.Terminal() {
		return widget.NewFormItem("Reviewer", line)
	}
	change := widget.NewButton(labelReviewerChange, func() { w.askReviewer(p) })
	return widget.NewFormItem("Reviewer", container.NewBorder(nil, nil, nil, change, line))
}

// askReviewer offers the repository's live sessions that did not work on p,
// and a person; the choice is recorded off the Fyne goroutine.
func (w *workWindow) askReviewer(p store.Packet) {
	w.g.background(func() {
		list, err := invoke(w.g, mcpserver.MethodSessionList, store.SessionFilter{RepositoryID: p.RepositoryID, State: store.SessionRunning})
		fyne.Do(func() {
			if err != nil {
				w.fail("list the sessions that could review "+p.ID, err)
				return
			}
			w.showReviewerChoice(p, reviewerCandidates(p, list.Sessions))
		})
	})
}

// reviewerCandidates are the sessions that may be made p's reviewer.
func reviewerCandidates(p store.Packet, sessions []store.Session) []store.Session {
	worked := p.WorkedBy()
	return slices.DeleteFunc(slices.Clone(sessions), func(s store.Session) bool { return slices.Contains(worked, s.ID) })
}

func (w *workWindow) showReviewerChoice(p store.Packet, candidates []store.Session) {
	options := []string{labelReviewerPerson}
	ids := map[string]string{labelReviewerPerson: ""}
	for _, s := range candidates {
		label := agentName(s) + " (" + s.ID + ")"
		options = append(options, label)
		ids[label] = s.ID
	}
	pick := widget.NewSelect(options, nil)
	pick.SetSelected(labelReviewerPerson)
	for label, id := range ids {
		if id == p.Reviewer && id != "" {
			pick.SetSelected(label)
		}
	}
	body := container.NewVBox(wrappedLabel(textReviewer), pick)
	d := dialog.NewCustomConfirm(titleReviewer, "Save", "Cancel", body, func(ok bool) {
		if !ok {
			return
		}
		args := mcpserver.AssignReviewerArgs{PacketID: p.ID, SessionID: ids[pick.Selected]}
		w.g.background(func() {
			err := workActErr(w, mcpserver.MethodWorkAssignReviewer, args, "Reviewer saved.")
			if err != nil {
				fyne.Do(func() { w.fail("make "+pick.Selected+" the reviewer of "+p.ID, err) })
			}
		})
	}, w.win)
	d.Resize(fyne.NewSize(520, d.MinSize().Height))
	d.Show()
}
