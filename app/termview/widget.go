// Package termview is the terminal widget of the Sessions window: it paints
// the screen of a supervised agent from vt snapshots and sends the person's
// keystrokes, pastes and size back to it.
//
// The widget knows nothing of processes. It talks to a Target (what
// supervisor.Session offers) and is fed screens by its owner, so it can be
// tested with a fake target and hand-made snapshots:
//
//	term := termview.New(session)
//	term.SetScrollback(session.Terminal())
//	go func() {
//		for snap := range session.Frames(ctx, 33*time.Millisecond) {
//			fyne.Do(func() { term.SetSnapshot(snap) })
//		}
//	}()
//
// One concern per file: colours (colors.go), painting rows (render.go)
// from cached glyphs (glyphs.go), the cursor and the scroll badge
// (overlay.go), keys (input.go), scrollback and the wheel (scroll.go),
// selection and the clipboard (select.go), size (size.go).
package termview

import (
	"runtime"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Target is what the widget drives: the agent's terminal. Its methods are
// called on the Fyne goroutine and must not block; supervisor.Session's
// queue input and return at once.
type Target interface {
	// Input sends bytes as if typed.
	Input(p []byte) error
	// Paste sends text as a paste, bracketed when the program asked.
	Paste(text string) error
	// Resize sets the terminal size in cells.
	Resize(cols, rows int) error
}

// Scrollback is where lines that scrolled off the top are read from;
// *vt.Terminal implements it.
type Scrollback interface {
	// ScrollbackLen returns how many lines there are.
	ScrollbackLen() int
	// ScrollbackLine returns line i, 0 being the oldest, possibly shorter
	// than the screen is wide.
	ScrollbackLine(i int) []vt.Cell
}

// Terminal is the widget. All its methods must be called on the Fyne
// goroutine (from a goroutine, through fyne.Do).
type Terminal struct {
	widget.BaseWidget

	target Target
	sb     Scrollback

	// snap is the screen shown; nil until the first SetSnapshot.
	snap *vt.Snapshot

	// m are the cell metrics for the theme's text size.
	m metrics
	// grid is the size in cells that fits the widget; sent is the last
	// size given to the target.
	grid, sent gridSize
	// cancelResize stops the pending debounced Resize of the target.
	cancelResize func() bool
	// after runs f on the Fyne goroutine after d, returning a function
	// that cancels it. Tests replace it to drive time themselves.
	after func(d time.Duration, f func()) (cancel func() bool)

	// offset is how many lines the view is scrolled up into the
	// scrollback; 0 is the live screen.
	offset int
	// sbLen is the scrollback length seen at the last frame or scroll, so
	// the view stays put while new lines arrive.
	sbLen int
	// wheel collects wheel movement smaller than a line.
	wheel float32

	sel selection

	focused bool
	// mods are the modifier keys held, tracked from KeyDown/KeyUp for
	// drivers that cannot be asked; lastKey is the last key pressed, which
	// tells Ctrl+C from Ctrl+Insert (both arrive as fyne.ShortcutCopy).
	mods    fyne.KeyModifier
	lastKey fyne.KeyName
	// macKeys says the platform shortcut key is Command, so Fyne's
	// copy/paste shortcuts are the person's and not control characters.
	macKeys bool

	r *renderer
}

// resizeDelay is how long the widget waits for its size to settle before
// resizing the agent's terminal. Dragging a window edge resizes the widget
// every frame; each PTY resize makes a TUI redraw everything, so only the
// size the person stops at is sent.
const resizeDelay = 100 * time.Millisecond

// New returns a terminal widget that sends input and its size to target.
// It shows nothing until the first SetSnapshot.
func New(target Target) *Terminal {
	t := &Terminal{
		target:  target,
		macKeys: runtime.GOOS == "darwin",
		after: func(d time.Duration, f func()) func() bool {
			return time.AfterFunc(d, func() { fyne.Do(f) }).Stop
		},
	}
	t.ExtendBaseWidget(t)
	return t
}

// SetScrollback sets where the wheel scrolls to; nil turns scrolling off.
// The owner passes the session's *vt.Terminal.
func (t *Terminal) SetScrollback(sb Scrollback) {
	t.sb = sb
	t.offset, t.sbLen = 0, 0
	if sb != nil {
		t.sbLen = sb.ScrollbackLen()
	}
	t.repaint()
}

// SetSnapshot shows s, which the widget keeps and does not modify (the
// owner must not modify it either). A frame with the Seq of the one shown
// is the same screen and costs nothing, so an owner may call this as often
// as frames arrive. Only rows that changed are repainted. Snapshots must
// all come from one vt.Terminal: Seq is only comparable within one, so a
// widget shows one session for its life (make a new one for another).
func (t *Terminal) SetSnapshot(s *vt.Snapshot) {
	if s == nil || (t.snap != nil && s.Seq == t.snap.Seq) {
		return
	}
	if t.snap != nil && s.AltScreen != t.snap.AltScreen {
		t.sel = selection{}
	}
	t.snap = s
	t.followScrollback()
	t.repaint()
}

// Snapshot returns the screen shown, nil before the first frame.
func (t *Terminal) Snapshot() *vt.Snapshot { return t.snap }

// Text returns what is painted as text: one line per row of the screen (or
// of the scrollback while scrolled up), trailing blanks trimmed, each wide
// character once.
func (t *Terminal) Text() string {
	if t.snap == nil {
		return ""
	}
	var b strings.Builder
	for y := range t.snap.Rows {
		if y > 0 {
			b.WriteByte('\n')
		}
		line, _ := t.viewLine(y, nil)
		writeCells(&b, line, t.snap.Combining)
	}
	return b.String()
}

// writeCells appends the text of cells to b without trailing blanks.
func writeCells(b *strings.Builder, cells []vt.Cell, combs []string) {
	end := len(cells)
	for end > 0 && (cells[end-1].Rune == 0 || cells[end-1].Rune == ' ') && cells[end-1].Comb == 0 {
		end--
	}
	for _, c := range cells[:end] {
		b.WriteString(vt.CellText(c, combs))
	}
}

// repaint brings the painted screen up to date, if it is painted yet.
func (t *Terminal) repaint() {
	if t.r != nil {
		t.r.update()
	}
}

// CreateRenderer is part of fyne.Widget.
func (t *Terminal) CreateRenderer() fyne.WidgetRenderer {
	t.r = newRenderer(t)
	return t.r
}

// Tapped takes the keyboard focus and drops a selection.
func (t *Terminal) Tapped(*fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(t); c != nil {
		c.Focus(t)
	}
	t.clearSelection()
}

// FocusGained is part of fyne.Focusable. A program that asked for focus
// events (?1004) is told, so a TUI can show it is being typed into.
func (t *Terminal) FocusGained() {
	t.focused = true
	if t.snap != nil && t.snap.Modes.FocusEvents {
		_ = t.target.Input([]byte("\x1b[I"))
	}
	t.repaint()
}

// FocusLost is part of fyne.Focusable. Modifier keys released while the
// focus was elsewhere never reach KeyUp, so they are forgotten here.
func (t *Terminal) FocusLost() {
	t.focused = false
	t.mods = 0
	if t.snap != nil && t.snap.Modes.FocusEvents {
		_ = t.target.Input([]byte("\x1b[O"))
	}
	t.repaint()
}

// AcceptsTab keeps Tab in the terminal (shells complete with it) instead of
// moving the focus to the next widget.
func (t *Terminal) AcceptsTab() bool { return true }

// Cursor shows a text cursor over the terminal.
func (t *Terminal) Cursor() desktop.Cursor { return desktop.TextCursor }

var (
	_ fyne.Widget            = (*Terminal)(nil)
	_ fyne.Focusable         = (*Terminal)(nil)
	_ fyne.Tappable          = (*Terminal)(nil)
	_ fyne.SecondaryTappable = (*Terminal)(nil)
	_ fyne.Shortcutable      = (*Terminal)(nil)
	_ fyne.Tabbable          = (*Terminal)(nil)
	_ fyne.Scrollable        = (*Terminal)(nil)
	_ fyne.Draggable         = (*Terminal)(nil)
	_ desktop.Keyable        = (*Terminal)(nil)
	_ desktop.Mouseable      = (*Terminal)(nil)
	_ desktop.Cursorable     = (*Terminal)(nil)
)
