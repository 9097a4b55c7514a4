package app

// In team mode the store is a PostgreSQL server, which can go away: a
// restart, a network gone, a server that does not answer in time. Every
// call then fails with store_unavailable and nothing is done. The windows
// and the tray say so in one line, so that a person does not take their
// stale lists and failed clicks for Switchboard's own fault, and the line
// goes once calls succeed again. With bbolt no call fails that way.

import (
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// Store-unavailable wording: the windows' line and the tray's.
const (
	textStoreDown = "The shared database is not answering; Switchboard retries by itself. " +
		"Until it answers, what you see may be out of date and changes fail."
	labelStoreDown   = "Shared database not answering; retrying…"
	tooltipStoreDown = "Switchboard: the shared database is not answering"
)

// storeHealth is whether the store answered the GUI's last call that
// tells: a store_unavailable failure says it is down, a success that it
// is back. Other failures (a refusal, a bad argument) say nothing about
// it. Calls come from any goroutine.
type storeHealth struct{ down atomic.Bool }

// observe notes a call's outcome and reports whether it turned the state.
func (h *storeHealth) observe(err error) bool {
	switch {
	case err == nil:
		return h.down.Swap(false)
	case store.CodeOf(err) == store.CodeStoreUnavailable:
		return !h.down.Swap(true)
	}
	return false
}

// isDown reports whether the last call that tells found the store down.
func (h *storeHealth) isDown() bool { return h.down.Load() }

// storeLine is a window's line about the store: above its content, hidden
// while the store answers.
type storeLine struct {
	line *fyne.Container // the icon and the text
	box  *fyne.Container // the window's content with the line on top
}

// withStoreLine is a window's line above content; place keeps it in
// g.storeLines while the window is open. On the Fyne goroutine.
func (g *gui) withStoreLine(content fyne.CanvasObject) storeLine {
	text := widget.NewLabel(textStoreDown)
	text.Wrapping = fyne.TextWrapWord
	text.Importance = widget.WarningImportance
	icon := widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon()))
	line := container.NewBorder(nil, nil, icon, nil, text)
	line.Hidden = !g.health.isDown()
	return storeLine{line: line, box: container.NewBorder(line, nil, nil, nil, content)}
}

// noteStore records a call's outcome and, when it turned the state, has
// the open windows show it. The windows change on the Fyne goroutine, and
// from a goroutine of their own: the call may come from one that holds a
// window's lock, which a fyne.Do waiting here would then wait on.
func (g *gui) noteStore(err error) {
	if !g.health.observe(err) {
		return
	}
	if g.health.isDown() {
		g.log.Warn("the store is not answering", "err", err)
	} else {
		g.log.Info("the store answers again")
	}
	go fyne.Do(g.showStoreHealth)
}

// showStoreHealth shows or hides every open window's line as the store is
// now (not as it was when the turn was seen: two quick turns may run in
// either order). On the Fyne goroutine.
func (g *gui) showStoreHealth() {
	down := g.health.isDown()
	for _, l := range g.storeLines {
		if l.line.Visible() == down {
			continue
		}
		l.line.Hidden = !down
		// The line takes room from the content: laid out again.
		l.box.Refresh()
	}
}

// trayTooltip is the tray icon's tooltip: empty, so that panels show the
// app's name, unless the store does not answer.
func trayTooltip(storeDown bool) string {
	if storeDown {
		return tooltipStoreDown
	}
	return ""
}
