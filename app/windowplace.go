package app

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// Each window comes back at the size and place the person left it, read
// from the app's preferences under window.<name>.*: a window that reopens
// at its default every time is resized by hand every time.

// maxWindowSide bounds a remembered size, so a preferences file edited by
// hand (or one from a huge monitor since unplugged) cannot ask for a window
// no screen shows.
const maxWindowSide = 8192

// positioner is what the patched GLFW driver adds to its windows
// (third_party/fyne/PATCH.md); the test driver's windows have no place.
type positioner interface {
	Position() (x, y int, ok bool)
	SetPosition(x, y int)
	FitToScreen(frame int)
}

// titleBar is the room left above a window for the window manager's title
// bar when it is fitted to the screen.
const titleBar = 40

// windowKind names a kind of window in the preferences' keys.
type windowKind string

const (
	windowSessions windowKind = "sessions"
	windowAudit    windowKind = "audit"
	windowSettings windowKind = "settings"
)

// windowPlace is one kind of window's default size and the least it may
// be made.
type windowPlace struct {
	name windowKind
	size fyne.Size
	min  fyne.Size
}

// place is the kind's default size and minimum. The minimums keep every
// pane usable: the Work board's six columns and the Audit table's columns
// still show a word each, and a Settings tab still shows its buttons.
func (k windowKind) place() windowPlace {
	switch k {
	case windowAudit:
		return windowPlace{k, fyne.NewSize(1280, 760), fyne.NewSize(820, 460)}
	case windowSettings:
		return windowPlace{k, fyne.NewSize(960, 620), fyne.NewSize(680, 440)}
	default:
		return windowPlace{windowSessions, fyne.NewSize(1280, 760), fyne.NewSize(760, 440)}
	}
}

func (p windowPlace) key(field string) string {
	return fmt.Sprintf("window.%s.%s", p.name, field)
}

// place gives win, whose content is set, its minimum size, the size and
// place remembered for its kind and the line that says when the store does
// not answer, and makes closing it remember the size and place again
// before onClosed runs. Windows still open when the app quits are
// remembered by rememberOpenWindows. On the Fyne goroutine.
func (g *gui) place(win fyne.Window, kind windowKind, onClosed func()) {
	p := kind.place()
	// Every window says when the store does not answer (storehealth.go).
	line := g.withStoreLine(win.Content())
	win.SetContent(atLeast(p.min, line.box))
	if g.storeLines == nil {
		g.storeLines = make(map[fyne.Window]storeLine)
	}
	g.storeLines[win] = line

	prefs := g.app.Preferences()
	size := fyne.NewSize(
		clampSide(prefs.FloatWithFallback(p.key("width"), float64(p.size.Width)), p.min.Width),
		clampSide(prefs.FloatWithFallback(p.key("height"), float64(p.size.Height)), p.min.Height))
	win.Resize(size)
	if pw, ok := win.(positioner); ok {
		if prefs.Bool(p.key("placed")) {
			pw.SetPosition(prefs.Int(p.key("x")), prefs.Int(p.key("y")))
		}
		// After the place: a window from a larger screen comes back
		// inside this one.
		pw.FitToScreen(titleBar)
	}

	if g.placed == nil {
		g.placed = make(map[fyne.Window]windowPlace)
	}
	g.placed[win] = p
	win.SetOnClosed(func() {
		g.remember(win, p)
		delete(g.placed, win)
		delete(g.storeLines, win)
		if onClosed != nil {
			onClosed()
		}
	})
}

// clampSide is a remembered side, no less than the window's minimum and no
// more than maxWindowSide.
func clampSide(v float64, least float32) float32 {
	s := float32(v)
	if !(s >= least) { // also NaN
		return least
	}
	return min(s, maxWindowSide)
}

// remember writes win's size, and its place where the driver knows it, to
// the preferences.
func (g *gui) remember(win fyne.Window, p windowPlace) {
	prefs := g.app.Preferences()
	size := win.Canvas().Size()
	if size.Width > 0 && size.Height > 0 {
		prefs.SetFloat(p.key("width"), float64(size.Width))
		prefs.SetFloat(p.key("height"), float64(size.Height))
	}
	if pw, ok := win.(positioner); ok {
		if x, y, ok := pw.Position(); ok {
			prefs.SetInt(p.key("x"), x)
			prefs.SetInt(p.key("y"), y)
			prefs.SetBool(p.key("placed"), true)
		}
	}
}

// rememberOpenWindows remembers every window still open: quitting does
// not close them, so their SetOnClosed never runs. On the Fyne goroutine.
func (g *gui) rememberOpenWindows() {
	for win, p := range g.placed {
		g.remember(win, p)
	}
}

// quitApp remembers the open windows and quits; the preferences are
// written when the app stops.
func (g *gui) quitApp() {
	g.rememberOpenWindows()
	g.app.Quit()
}
