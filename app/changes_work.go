package app

// The packet detail's way into its Changes tab: a packet's commits, or why
// it has none.

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// changesSection is the Changes section of packet p's detail: what its
// commits changed and a button to review them, whether they landed, or
// that an agent started by hand left no commits to land.
func (w *workWindow) changesSection(p store.Packet) fyne.CanvasObject {
	ch := p.Changes
	if ch == nil {
		return workDim(labelChangesNoRange)
	}
	text := fmt.Sprintf("%d files, +%d −%d on %s, onto %s", ch.Files, ch.Added, ch.Deleted, ch.Branch, ch.BaseBranch)
	if l := p.Landed; l != nil {
		text += fmt.Sprintf("; landed as %s (%s)", shortCommit(l.Commit), l.Mode)
	} else if p.State == store.PacketDone {
		text += "; not landed yet (Changes ▸ Land ▾)"
	}
	id := p.ID
	open := widget.NewButtonWithIcon(labelChanges, theme.DocumentIcon(), func() { w.g.showPacketChanges(id) })
	open.Importance = widget.HighImportance
	return container.NewBorder(nil, nil, nil, container.NewCenter(open), workWrapped(text))
}
