package app

import "fyne.io/fyne/v2"

// workWindow is the Work window: packets by state, create, cancel, requeue,
// artifacts and verdicts.
type workWindow struct {
	win fyne.Window
}

// showWork opens the Work window, or brings it forward.
func (g *gui) showWork() {
	if g.work == nil {
		g.work = &workWindow{win: g.app.NewWindow("Switchboard — Work")}
		g.work.win.SetOnClosed(func() { g.work = nil })
	}
	g.work.win.Show()
}
