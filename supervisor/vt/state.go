package vt

import (
	"fmt"
	"io"
	"slices"
)

// A process that owns an agent's PTY keeps its Terminal, and a client that
// attaches later (the app restarting and adopting the agent) needs that
// terminal as it is: screen, scrollback, cursor, modes. As tmux and mosh
// do, the terminal is handed over as output: a stream of ordinary escape
// sequences that, written to a fresh Terminal, rebuilds it, after which
// the live bytes follow as if the client had been there all along. There
// is no second format to keep in step with the emulator, and whatever
// reads the stream needs nothing but Write.

// WriteState writes to w a byte stream that, written to a fresh Terminal
// of the same size and scrollback limit (New(cols, rows,
// WithScrollback(n))) before anything else, makes that terminal the same
// as t, so that the bytes t is fed next do the same to both. It
// reproduces:
//
//   - the scrollback, oldest line first, and the main screen, cell for
//     cell: characters, wide characters, combining marks, colours,
//     attributes, and empty cells as empty (not spaces), erased ones in
//     their background colour;
//   - the alternate screen and which of the two is shown;
//   - the cursor: position, a wrap pending in the last column, the pen,
//     origin mode and the character sets, and the cursor each screen
//     saved (DECSC);
//   - the scroll region, tab stops, title and every mode in Modes;
//   - the character REP repeats, and a sequence or UTF-8 character the
//     last Write cut off, which the next bytes complete.
//
// The emulator keeps no soft-wrap flag (it does not reflow), so a line that
// wrapped is two rows here as there. Counters (Seq, Bells, notifications)
// start again from zero, and what the terminal was configured with (the
// reply function, default colours) is the new terminal's own.
//
// A few states no escape sequence can reach are approximated: a
// scrollback line wider than the screen (it scrolled off before the
// terminal narrowed) is cut to the screen's width; a wrap pending over an
// empty last column, or origin mode with the cursor outside the scroll
// region, is restored through the alternate screen's saved cursor, which
// then holds the current cursor; a REP character that appears nowhere on
// the screen, or none at all once something has been printed, is lost; a
// wide character squeezed into one column (by a one-column screen since
// widened) becomes U+FFFD.
//
// The state is taken between two Writes, atomically, and formatted in
// memory: w is written after t's lock is released, so a slow w never
// stalls the program's output.
func (t *Terminal) WriteState(w io.Writer) error {
	state := t.AppendState(nil)
	if _, err := w.Write(state); err != nil {
		return fmt.Errorf("writing the terminal state: %w", err)
	}
	return nil
}

// AppendState appends WriteState's stream to dst and returns it.
func (t *Terminal) AppendState(dst []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	dst, _ = t.appendState(dst)
	return dst
}

// stateLoss says which part of the state appendState could only
// approximate (see WriteState).
type stateLoss uint8

const (
	// lossAltSaved: the alternate screen's saved cursor holds the cursor.
	lossAltSaved stateLoss = 1 << iota
	// lossLastRune: REP's character is not the same.
	lossLastRune
	// lossScrollbackWidth: scrollback lines were cut to the screen width.
	lossScrollbackWidth
	// lossForcedNarrow: a wide character in one column became U+FFFD.
	lossForcedNarrow
)

// appendState is AppendState with t.mu held; it also says what it could
// not reproduce exactly.
func (t *Terminal) appendState(dst []byte) ([]byte, stateLoss) {
	// Room for the whole stream at once: grown by doubling, the buffer of
	// a full scrollback would be copied a dozen times with the lock held.
	size := 2 * t.rows * (t.cols + 8)
	for i := range t.sb.n {
		size += len(t.sb.at(i)) + 4
	}
	w := &stateWriter{b: slices.Grow(dst, size), pen: blankCell, combs: t.combs, cols: t.cols}
	cur := savedCursor{
		x: t.x, y: t.y, wrapPending: t.wrapPending, pen: t.pen,
		origin: t.modes.Origin, charsets: t.charsets, gl: t.gl,
	}
	// The cursor is placed last, by moving it and, for a pending wrap, by
	// printing again the character it waits after. When that cannot be
	// done, a screen's saved cursor is set to it and DECRC restores it.
	direct := t.cursorDirect(cur)
	mainSaved, altSaved := t.main.saved, t.alt.saved
	var restoreFrom *screen
	switch {
	case direct:
	case sameCursor(mainSaved, cur, t.cols):
		restoreFrom = &t.main
	case sameCursor(altSaved, cur, t.cols):
		restoreFrom = &t.alt
	default:
		// The alternate screen's saved cursor is the one that least
		// matters: entering it with 1049 does not read it.
		restoreFrom, altSaved = &t.alt, cur
		w.loss |= lossAltSaved
	}

	// The order matters. A saved cursor is set before its screen is drawn
	// (a pending wrap is set by printing, which the drawing covers); the
	// alternate screen before the main one, whose drawing scrolls the
	// scrollback into place; the scroll region after both (DECSTBM homes
	// the cursor, and the lines must scroll the whole screen); REP's
	// character, which printing sets, before the cursor; the modes that
	// change printing (insert, autowrap) after the last character; and
	// the sequence the last Write cut off at the very end.
	if t.title != "" {
		w.b = append(w.b, "\x1b]2;"...)
		w.b = append(w.b, t.title...)
		w.b = append(w.b, 0x07)
	}
	t.appendTabs(w)
	t.appendAlt(w, altSaved)
	w.saved(mainSaved)
	w.sgr(blankCell)
	w.b = append(w.b, "\x1b[2J\x1b[H"...)
	t.appendMain(w)
	if t.scr == &t.alt {
		w.privateMode(47, true)
	}
	if t.top != 0 || t.bot != t.rows-1 {
		w.csi("r", t.top+1, t.bot+1)
	}
	if !(direct && cur.wrapPending) {
		t.appendLastRune(w)
	}
	t.appendCursor(w, cur, restoreFrom)
	t.appendModes(w)
	w.parser(&t.p)
	if t.lastRune == 0 && w.printed {
		w.loss |= lossLastRune
	}
	return w.b, w.loss
}

// cursorDirect reports whether moving the cursor and printing can put it
// where cur says: origin mode confines moves to the scroll region, and a
// pending wrap is set by printing again what the last column holds, which
// must be a character and the one REP repeats.
func (t *Terminal) cursorDirect(cur savedCursor) bool {
	if cur.origin && (cur.y < t.top || cur.y > t.bot) {
		return false
	}
	if !cur.wrapPending {
		return true
	}
	c := t.pendingCell(cur.y)
	return c.Rune != 0 && c.Rune == t.lastRune && reprints(c, t.cols)
}

// reprints reports whether printing c's character makes c again: not a
// wide character squeezed into one column while the screen was that narrow.
func reprints(c Cell, cols int) bool {
	return c.Width == 2 || cols < 2 || runeWidth(c.Rune) != 2
}

// pendingCell returns the character in the last column of row y of the
// shown screen: the left half when a wide character ends there.
func (t *Terminal) pendingCell(y int) Cell {
	line := t.scr.line(y)
	c := line[t.cols-1]
	if c.Width == 0 {
		c = line[t.cols-2]
	}
	return c
}

// sameCursor reports whether restoring a and b does the same.
func sameCursor(a, b savedCursor, cols int) bool {
	a.wrapPending = a.wrapPending && a.x == cols-1
	b.wrapPending = b.wrapPending && b.x == cols-1
	return a == b
}

// appendTabs sets the tab stops, when they are not the default ones.
func (t *Terminal) appendTabs(w *stateWriter) {
	same := true
	for x, stop := range t.tabs {
		same = same && stop == (x > 0 && x%8 == 0)
	}
	if same {
		return
	}
	w.b = append(w.b, "\x1b[3g"...)
	for x, stop := range t.tabs {
		if stop {
			w.csi("G", x+1)
			w.b = append(w.b, "\x1bH"...)
		}
	}
}

// appendAlt draws the alternate screen and sets its saved cursor, unless
// both are as in a fresh terminal. It shows the main screen again after.
func (t *Terminal) appendAlt(w *stateWriter, saved savedCursor) {
	if saved == (savedCursor{pen: blankCell}) && screenBlank(&t.alt) {
		return
	}
	w.privateMode(47, true)
	w.saved(saved)
	w.b = append(w.b, "\x1b[2J"...)
	for y := range t.rows {
		if line := t.alt.used(y); !rowBlank(line) {
			w.cup(0, y)
			w.row(line)
		}
	}
	w.privateMode(47, false)
}

// saved makes s the shown screen's saved cursor (DECSC). The screen must
// be erased afterwards: setting a pending wrap prints a character.
func (w *stateWriter) saved(s savedCursor) {
	if s == (savedCursor{pen: blankCell}) {
		return
	}
	if s.origin {
		// The scroll region is the whole screen here, so origin mode
		// moves nothing and the cursor can go anywhere.
		w.privateMode(6, true)
	}
	if s.wrapPending && s.x == w.cols-1 {
		w.sgr(blankCell)
		w.cup(s.x, s.y)
		w.b = append(w.b, 'x')
		w.printed = true
	} else {
		w.cup(s.x, s.y)
	}
	w.sgr(s.pen)
	w.charsets(s.charsets, s.gl)
	w.b = append(w.b, "\x1b7"...)
	w.resetCharsets(s.charsets, s.gl)
	if s.origin {
		w.privateMode(6, false)
	}
	w.sgr(blankCell)
}

// appendMain draws the scrollback and the main screen, one line after the
// other from the top row, each CR LF scrolling the top row into the
// scrollback once the screen is full: the lines land there in order, each
// once, and the screen ends as it is.
func (t *Terminal) appendMain(w *stateWriter) {
	for i := range t.sb.n {
		w.scrollbackRow(t.sb.at(i))
		t.newLine(w)
	}
	for y := range t.rows {
		w.row(t.main.used(y))
		if y < t.rows-1 {
			t.newLine(w)
		}
	}
}

// newLine moves the reader to the start of the next row, its background
// reset first so that a row scrolled in is blank.
func (t *Terminal) newLine(w *stateWriter) {
	if w.pen.Bg != DefaultColor {
		w.sgr(Cell{Fg: w.pen.Fg, Attr: w.pen.Attr})
	}
	w.b = append(w.b, "\r\n"...)
}

// appendLastRune makes REP's character t's, by printing it again where a
// screen has it, or printing and erasing it where a screen is empty: the
// shown one, or else the other, which REP's character outlives.
func (t *Terminal) appendLastRune(w *stateWriter) {
	r := t.lastRune
	if r == 0 {
		return
	}
	other := &t.alt
	if t.scr == &t.alt {
		other = &t.main
	}
	for _, s := range []*screen{t.scr, other} {
		x, y, again, ok := t.runeSpot(s, r)
		if !ok {
			continue
		}
		if s != t.scr {
			w.privateMode(47, s == &t.alt)
		}
		w.cup(x, y)
		if again {
			w.cell(s.line(y)[x])
		} else {
			bg := s.line(y)[x].Bg
			w.cell(Cell{Rune: r, Fg: w.pen.Fg, Bg: w.pen.Bg, Attr: w.pen.Attr})
			w.cup(x, y)
			w.sgr(Cell{Fg: w.pen.Fg, Bg: bg, Attr: w.pen.Attr})
			w.csi("X", runeCells(r, t.cols))
		}
		if s != t.scr {
			w.privateMode(47, t.scr == &t.alt)
		}
		return
	}
	w.loss |= lossLastRune
}

// runeSpot finds where printing r leaves s as it is: a cell of s that
// holds r (again), or else empty cells as wide as r, to print on and erase.
func (t *Terminal) runeSpot(s *screen, r rune) (x, y int, again, ok bool) {
	for y := range t.rows {
		for x, c := range s.line(y) {
			if c.Rune == r && c.Width != 0 && reprints(c, t.cols) {
				return x, y, true, true
			}
		}
	}
	width := runeCells(r, t.cols)
	for y := range t.rows {
		line := s.line(y)
		for x := 0; x+width <= t.cols; x++ {
			if emptyRun(line[x:x+width], line[x].Bg) {
				return x, y, false, true
			}
		}
	}
	return 0, 0, false, false
}

// runeCells returns how many cells printing r takes on a screen cols wide.
func runeCells(r rune, cols int) int {
	if cols < 2 {
		return 1
	}
	return runeWidth(r)
}

// appendCursor puts the cursor where cur says: with DECRC on the screen
// restoreFrom, whose saved cursor is cur, or else directly, which
// cursorDirect allows.
func (t *Terminal) appendCursor(w *stateWriter, cur savedCursor, restoreFrom *screen) {
	if restoreFrom != nil {
		if restoreFrom != t.scr {
			w.privateMode(47, restoreFrom == &t.alt)
		}
		w.b = append(w.b, "\x1b8"...)
		w.pen = cur.pen
		if restoreFrom != t.scr {
			w.privateMode(47, t.scr == &t.alt)
		}
		return
	}
	y := cur.y
	if cur.origin {
		w.privateMode(6, true)
		y -= t.top
	}
	if cur.wrapPending {
		c := t.pendingCell(cur.y)
		w.cup(t.cols-int(c.Width), y)
		w.cell(c)
	} else {
		w.cup(cur.x, y)
	}
	w.sgr(cur.pen)
	w.charsets(cur.charsets, cur.gl)
}

// appendModes sets the modes that are not the power-on ones. Autowrap goes
// last: turning it off cancels a pending wrap (there is none then).
func (t *Terminal) appendModes(w *stateWriter) {
	m := t.modes
	if m.Insert {
		w.csi("h", 4)
	}
	if m.LineFeedNewLine {
		w.csi("h", 20)
	}
	for _, pm := range []struct {
		mode int
		on   bool
	}{
		{1, m.AppCursorKeys}, {5, m.ReverseVideo}, {12, m.CursorBlink},
		{1004, m.FocusEvents}, {1006, m.SGRMouse}, {2004, m.BracketedPaste},
		{2026, m.SyncUpdate},
	} {
		if pm.on {
			w.privateMode(pm.mode, true)
		}
	}
	if m.MouseTracking {
		w.privateMode(m.MouseMode, true)
	}
	if !m.CursorVisible {
		w.privateMode(25, false)
	}
	if m.AppKeypad {
		w.b = append(w.b, "\x1b="...)
	}
	if m.CursorStyle != 0 {
		w.csi(" q", m.CursorStyle)
	}
	if !m.AutoWrap {
		w.privateMode(7, false)
	}
}

// screenBlank reports whether every cell of s is blank.
func screenBlank(s *screen) bool {
	for y := range s.rowmap {
		if !rowBlank(s.used(y)) {
			return false
		}
	}
	return true
}

// rowBlank reports whether every cell of line is blank.
func rowBlank(line []Cell) bool {
	for _, c := range line {
		if c != blankCell {
			return false
		}
	}
	return true
}

// emptyRun reports whether cells are all empty in background bg.
func emptyRun(cells []Cell, bg Color) bool {
	for _, c := range cells {
		if c != (Cell{Width: 1, Bg: bg}) {
			return false
		}
	}
	return true
}
