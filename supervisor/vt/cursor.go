package vt

// cursorTo moves the cursor to column x and row y, where y counts from the
// top margin in origin mode, clamping to where the cursor may go.
func (t *Terminal) cursorTo(x, y int) {
	minY, maxY := 0, t.rows-1
	if t.modes.Origin {
		y += t.top
		minY, maxY = t.top, t.bot
	}
	t.x = clamp(x, 0, t.cols-1)
	t.y = clamp(y, minY, maxY)
	t.wrapPending = false
	t.dirty = true
}

// cursorUp moves the cursor up n rows, stopping at the top margin if the
// cursor starts inside the scroll region.
func (t *Terminal) cursorUp(n int) {
	limit := 0
	if t.y >= t.top {
		limit = t.top
	}
	t.y = max(t.y-n, limit)
	t.wrapPending = false
	t.dirty = true
}

// cursorDown moves the cursor down n rows, stopping at the bottom margin if
// the cursor starts inside the scroll region.
func (t *Terminal) cursorDown(n int) {
	limit := t.rows - 1
	if t.y <= t.bot {
		limit = t.bot
	}
	t.y = min(t.y+n, limit)
	t.wrapPending = false
	t.dirty = true
}

// cursorRight moves the cursor n columns, negative for left.
func (t *Terminal) cursorRight(n int) {
	t.x = clamp(t.x+n, 0, t.cols-1)
	t.wrapPending = false
	t.dirty = true
}

// index moves the cursor down a row, scrolling the region up when the
// cursor is on its bottom margin (IND, and the LF part of a line feed).
func (t *Terminal) index() {
	switch {
	case t.y == t.bot:
		t.scrollUp(t.top, t.bot, 1, true)
	case t.y < t.rows-1:
		t.y++
	}
	t.wrapPending = false
	t.dirty = true
}

// reverseIndex moves the cursor up a row, scrolling the region down when
// the cursor is on its top margin (RI).
func (t *Terminal) reverseIndex() {
	switch {
	case t.y == t.top:
		t.scrollDown(t.top, t.bot, 1)
	case t.y > 0:
		t.y--
	}
	t.wrapPending = false
	t.dirty = true
}

// tabForward moves the cursor to the n-th next tab stop, or the last column.
func (t *Terminal) tabForward(n int) {
	for ; n > 0 && t.x < t.cols-1; n-- {
		t.x++
		for t.x < t.cols-1 && !t.tabs[t.x] {
			t.x++
		}
	}
	t.wrapPending = false
	t.dirty = true
}

// tabBack moves the cursor to the n-th previous tab stop, or column 0.
func (t *Terminal) tabBack(n int) {
	for ; n > 0 && t.x > 0; n-- {
		t.x--
		for t.x > 0 && !t.tabs[t.x] {
			t.x--
		}
	}
	t.wrapPending = false
	t.dirty = true
}

// saveCursor is DECSC: it keeps the cursor, the pen and the charsets.
func (t *Terminal) saveCursor() {
	t.scr.saved = savedCursor{
		x: t.x, y: t.y, wrapPending: t.wrapPending,
		pen: t.pen, origin: t.modes.Origin,
		charsets: t.charsets, gl: t.gl,
	}
}

// restoreCursor is DECRC. Without a DECSC first it restores the power-on
// state: home, default pen.
func (t *Terminal) restoreCursor() {
	s := t.scr.saved
	t.x = clamp(s.x, 0, t.cols-1)
	t.y = clamp(s.y, 0, t.rows-1)
	t.wrapPending = s.wrapPending && t.x == t.cols-1 && t.modes.AutoWrap
	t.pen = s.pen
	t.modes.Origin = s.origin
	t.charsets, t.gl = s.charsets, s.gl
	t.dirty = true
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
