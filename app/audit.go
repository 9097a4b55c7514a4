package app

import "fyne.io/fyne/v2"

// auditWindow is the Audit window: the audit log with filters, a detail
// pane, the hash chain's status and export.
type auditWindow struct {
	win fyne.Window
}

// showAudit opens the Audit window, or brings it forward.
func (g *gui) showAudit() {
	if g.audit == nil {
		g.audit = &auditWindow{win: g.app.NewWindow("Switchboard — Audit")}
		g.audit.win.SetOnClosed(func() { g.audit = nil })
	}
	g.audit.win.Show()
}
