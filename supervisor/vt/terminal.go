package vt

import (
	"fmt"
	"sync"
)

// DefaultScrollback is how many lines scroll off the top of the main screen
// before the oldest is forgotten, unless WithScrollback says otherwise.
const DefaultScrollback = 10000

// MaxCols and MaxRows bound the size of a terminal, far beyond any real
// window, so that a nonsense size cannot make New or Resize allocate
// gigabytes.
const (
	MaxCols = 2000
	MaxRows = 1000
)

// Terminal is an emulated terminal: bytes a program prints go in through
// Write, and the screen comes out through Snapshot, Text and friends.
//
// A Terminal is safe for concurrent use. One mutex guards all of its state
// and Write holds it for the whole call, so a reader on another goroutine
// sees the screen as it was between two Writes, never halfway through one.
// The hazard is the reply function (WithReply): it runs with that mutex
// held, so it must not call back into the Terminal (that deadlocks) and must
// not block (that stalls Write and every reader).
type Terminal struct {
	mu sync.Mutex

	// Every field below is guarded by mu.

	cols, rows int
	// main and alt are the two screen buffers; scr points at the one shown.
	main, alt screen
	scr       *screen
	// sb holds the lines that scrolled off the top of the main screen.
	sb ring

	// x, y is the cursor, always inside the screen.
	x, y int
	// wrapPending is xterm's "phantom column": a character was just
	// written in the last column, the cursor stays on it, and the line
	// wraps only when (and if) another character is printed.
	wrapPending bool
	// pen is the cell template for printed characters: colours and
	// attributes from SGR, Width 1, no rune.
	pen Cell
	// top and bot are the scroll region's first and last rows, inclusive.
	top, bot int
	// tabs marks the tab stops by column.
	tabs []bool
	// charsets holds G0 and G1; gl says which of them is in use (SI/SO).
	charsets [2]charset
	gl       int
	// lastRune is the last character printed, which REP repeats.
	lastRune rune

	modes Modes
	p     parser

	title string
	// seq counts visible changes; dirty says the current Write made one.
	seq   uint64
	dirty bool
	bells uint64
	// notes counts desktop notifications; lastNote is the newest.
	notes    uint64
	lastNote Notification

	// combs maps Cell.Comb ids to the combining marks they stand for; id 0
	// is no marks. It only ever grows, so a Snapshot can share it.
	combs   []string
	combIDs map[string]uint16

	reply func([]byte)
	// fgQuery and bgQuery are the answers to OSC 10/11 colour queries, in
	// xterm's rgb:rrrr/gggg/bbbb form; empty means do not answer.
	fgQuery, bgQuery string
}

// Option configures a Terminal in New.
type Option func(*config)

type config struct {
	scrollback int
	reply      func([]byte)
	fg, bg     Color
}

// WithScrollback keeps up to lines lines of scrollback for the main screen;
// 0 keeps none. The default is DefaultScrollback.
func WithScrollback(lines int) Option {
	return func(c *config) { c.scrollback = max(lines, 0) }
}

// WithReply sets the function that receives what the terminal answers the
// program: cursor position and status reports (DSR), device attributes (DA),
// mode reports (DECRQM), the text area size (XTWINOPS 18). Those bytes must
// reach the program's input (the PTY) or a program that asked may wait for
// them forever. The function is called synchronously from Write with the
// Terminal's lock held: it must not block and must not call the Terminal;
// queue the bytes and write them to the PTY elsewhere. The slice is the
// function's to keep. Without this option replies are dropped.
func WithReply(f func(reply []byte)) Option {
	return func(c *config) { c.reply = f }
}

// WithDefaultColors sets the default foreground and background colours the
// painter uses, so the terminal can answer a program's OSC 10/11 queries
// (TUIs ask to pick a light or dark theme). Without it those queries get no
// answer, which programs treat as "unknown"; a wrong answer would be worse.
// Default colours are ignored; indexed colours are resolved with Palette.
func WithDefaultColors(fg, bg Color) Option {
	return func(c *config) { c.fg, c.bg = fg, bg }
}

// New returns a terminal of cols×rows cells (each at least 1 and at most
// MaxCols, MaxRows), showing the main screen with the cursor at the top
// left.
func New(cols, rows int, opts ...Option) *Terminal {
	cfg := config{scrollback: DefaultScrollback}
	for _, o := range opts {
		o(&cfg)
	}
	cols, rows = clampSize(cols, rows)
	t := &Terminal{
		cols:    cols,
		rows:    rows,
		main:    newScreen(cols, rows, true),
		alt:     newScreen(cols, rows, false),
		sb:      ring{max: cfg.scrollback},
		reply:   cfg.reply,
		fgQuery: colorQueryAnswer(cfg.fg),
		bgQuery: colorQueryAnswer(cfg.bg),
		combs:   []string{""},
	}
	t.scr = &t.main
	t.resetState()
	return t
}

// resetState puts modes, cursor, pen, margins, tabs and charsets in their
// power-on state; it leaves the screen contents alone.
func (t *Terminal) resetState() {
	t.x, t.y, t.wrapPending = 0, 0, false
	t.pen = blankCell
	t.top, t.bot = 0, t.rows-1
	t.tabs = defaultTabs(t.tabs[:0], t.cols)
	t.charsets = [2]charset{}
	t.gl = 0
	t.lastRune = 0
	t.modes = Modes{AutoWrap: true, CursorVisible: true, AltScreen: t.scr == &t.alt}
	t.main.saved = savedCursor{pen: blankCell}
	t.alt.saved = savedCursor{pen: blankCell}
}

// defaultTabs returns tab stops every 8 columns, reusing buf.
func defaultTabs(buf []bool, cols int) []bool {
	for x := range cols {
		buf = append(buf, x > 0 && x%8 == 0)
	}
	return buf
}

// colorQueryAnswer formats c for an OSC 10/11 reply, or returns "" when
// there is nothing to say.
func colorQueryAnswer(c Color) string {
	r, g, b, ok := c.RGB()
	if !ok {
		i, indexed := c.Index()
		if !indexed {
			return ""
		}
		r, g, b = Palette(i)
	}
	// xterm answers with 16-bit components, each byte doubled.
	return fmt.Sprintf("rgb:%02x%02x/%02x%02x/%02x%02x", r, r, g, g, b, b)
}

// Write feeds the program's output to the terminal. It always consumes all
// of p and never fails or blocks: sequences and UTF-8 characters split
// across calls are carried over to the next one, and bytes that are not
// valid UTF-8 print as U+FFFD.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.parse(p)
	t.endChange()
	return len(p), nil
}

// endChange bumps the generation if anything visible changed.
func (t *Terminal) endChange() {
	if t.dirty {
		t.seq++
		t.dirty = false
	}
}

// Size returns the terminal's size in cells.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// Seq returns the generation of the screen: it grows whenever anything
// visible (a cell, the cursor, the title, a mode) changes, so a caller can
// tell "has the screen changed, is it stable" without copying it.
func (t *Terminal) Seq() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Bells returns how many BEL characters the program has printed; an agent
// CLI rings it when it wants attention.
func (t *Terminal) Bells() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bells
}

// Title returns the window title last set with OSC 0 or 2.
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

// Modes returns the terminal modes the program has set.
func (t *Terminal) Modes() Modes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.modes
}

// Combining returns the combining marks that Cell.Comb id stands for.
func (t *Terminal) Combining(id uint16) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if int(id) >= len(t.combs) {
		return ""
	}
	return t.combs[id]
}

// sendReply formats an answer to the program and hands it to the reply
// function, if there is one.
func (t *Terminal) sendReply(format string, args ...any) {
	if t.reply == nil {
		return
	}
	t.reply(fmt.Appendf(nil, format, args...))
}

// clampSize brings a size within 1×1 to MaxCols×MaxRows.
func clampSize(cols, rows int) (int, int) {
	return clamp(cols, 1, MaxCols), clamp(rows, 1, MaxRows)
}
