package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// labelWorkStartOn is the Work board's button that starts an agent on the
// selected packet; also what the tests tap.
const labelWorkStartOn = "Start agent on this packet…"

// newStartOnButton makes the button that offers the installed profiles for
// the selected packet.
func (w *workWindow) newStartOnButton() *widget.Button {
	var b *widget.Button
	b = widget.NewButtonWithIcon(labelWorkStartOn, theme.MediaPlayIcon(), func() {
		menu := w.startOnMenu()
		if menu == nil {
			return
		}
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b).AddXY(0, b.Size().Height)
		widget.ShowPopUpMenuAtPosition(menu, w.win.Canvas(), pos)
	})
	b.Importance = widget.HighImportance
	return b
}

// startOnMenu lists the installed profiles, each starting an agent on the
// selected packet; nil when they cannot be read (the status says why).
func (w *workWindow) startOnMenu() *fyne.Menu {
	profiles, err := invoke(w.g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		w.fail("list the agent profiles", err)
		return nil
	}
	p := w.detail.Packet
	var items []*fyne.MenuItem
	for _, prof := range profiles.Profiles {
		item := fyne.NewMenuItem(prof.Name, func() { w.startOn(prof.ID, p) })
		if !prof.Available {
			item.Label += labelNotInstalled
			item.Disabled = true
		}
		items = append(items, item)
	}
	return fyne.NewMenu(labelWorkStartOn, items...)
}

// startOn starts profile on packet p, off the Fyne goroutine (a worktree
// and a sandbox take a moment), and shows the new agent's session.
func (w *workWindow) startOn(profile string, p store.Packet) {
	w.showStatus("Starting "+profile+" on "+p.Title+"…", widget.MediumImportance)
	args := mcpserver.AgentStartArgs{Profile: profile, RepositoryID: p.RepositoryID, PacketID: p.ID, Permission: w.g.startPermission()}
	w.g.background(func() {
		out, err := invoke(w.g, mcpserver.MethodAgentStart, args)
		started := func(out mcpserver.AgentStarted, err error) {
			if err != nil {
				w.fail("start "+profile+" on "+p.ID, err)
				return
			}
			w.note("Started " + profile + " on " + p.Title + ".")
			w.reload()
			w.g.showSessions(out.SessionID)
		}
		fyne.Do(func() {
			if emptyRepository(err) {
				w.showStatus("", widget.MediumImportance)
				w.g.offerFirstCommit(w.win, args, started)
				return
			}
			started(out, err)
		})
	})
}
