package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// Words of a landing that needs another packet first.
const (
	titleDepends      = "Land the packet below it first"
	labelOpenDepended = "Open "
)

// showDepends tells of a landing refused because the packet builds on
// another that has not landed (depends_on_packet): the reason, which says
// what to do, and the packet to land first, to open in its own Changes
// view, where its plan is shown and it is landed (or approved) on its own.
// Then this one lands. Nothing lands here without being looked at.
func (r *changesReview) showDepends(d *store.Denial) {
	first := d.Packets[0]
	var dlg dialog.Dialog
	open := widget.NewButton(labelOpenDepended+first, func() {
		dlg.Hide()
		r.v.g.showPacketChanges(first)
	})
	open.Importance = widget.HighImportance
	body := container.NewVBox(wrappedLabel("Not landed: "+d.Reason+"."), container.NewHBox(open))
	dlg = dialog.NewCustom(titleDepends, labelLandDismiss, body, r.v.win)
	dlg.Resize(fyne.NewSize(600, dlg.MinSize().Height))
	dlg.Show()
}
