package vt

// screen is one of the two screen buffers (main and alternate).
//
// Each row is its own slice, so scrolling a region rotates row headers —
// O(rows) per line feed — instead of copying every cell up a line.
type screen struct {
	// lines holds rows×cols cells; every line is exactly cols long.
	lines [][]Cell
	// saved is the cursor DECSC stored for this screen.
	saved savedCursor
}

// savedCursor is what DECSC saves and DECRC restores.
type savedCursor struct {
	x, y        int
	wrapPending bool
	pen         Cell
	origin      bool
	charsets    [2]charset
	gl          int
}

// newScreen returns a blank screen. The rows share one allocation for
// locality; each is capped to its own cells so no append can spill into the
// next row.
func newScreen(cols, rows int) screen {
	block := make([]Cell, cols*rows)
	fill(block, blankCell)
	lines := make([][]Cell, rows)
	for y := range lines {
		lines[y] = block[y*cols : (y+1)*cols : (y+1)*cols]
	}
	return screen{lines: lines}
}

// clear fills the whole screen with c.
func (s *screen) clear(c Cell) {
	for _, line := range s.lines {
		fill(line, c)
	}
}

// fill sets every cell of line to c, doubling the copied span each round so
// a long row is filled at memmove speed rather than one store per cell.
func fill(line []Cell, c Cell) {
	if len(line) == 0 {
		return
	}
	line[0] = c
	for n := 1; n < len(line); n *= 2 {
		copy(line[n:], line[:n])
	}
}

// eraseCell is what erasing leaves behind: a blank in the current
// background colour (xterm's background colour erase), nothing else.
func (t *Terminal) eraseCell() Cell {
	return Cell{Width: 1, Bg: t.pen.Bg}
}

// splitWide makes sure no wide character straddles the boundary between
// columns x-1 and x, blanking both halves of one that does. Every operation
// that overwrites, erases or shifts part of a line calls it at the edges of
// the part, so a line never holds half a wide character.
func (t *Terminal) splitWide(line []Cell, x int) {
	if x > 0 && x < len(line) && line[x].Width == 0 {
		e := t.eraseCell()
		line[x-1], line[x] = e, e
	}
}

// eraseRange blanks columns [from, to) of line.
func (t *Terminal) eraseRange(line []Cell, from, to int) {
	from, to = max(from, 0), min(to, len(line))
	if from >= to {
		return
	}
	t.splitWide(line, from)
	t.splitWide(line, to)
	fill(line[from:to], t.eraseCell())
	t.dirty = true
}

// insertBlanks shifts the cells from column x right by n, dropping those
// pushed past the end, and blanks the n cells opened at x.
func (t *Terminal) insertBlanks(line []Cell, x, n int) {
	cols := len(line)
	n = min(n, cols-x)
	if n <= 0 {
		return
	}
	t.splitWide(line, x)
	copy(line[x+n:], line[x:cols-n])
	fill(line[x:x+n], t.eraseCell())
	if line[cols-1].Width == 2 {
		// Its right half was pushed off the line.
		line[cols-1] = t.eraseCell()
	}
	t.dirty = true
}

// deleteCells removes n cells at column x, shifting the rest of the line
// left and blanking the cells freed at the end.
func (t *Terminal) deleteCells(line []Cell, x, n int) {
	cols := len(line)
	n = min(n, cols-x)
	if n <= 0 {
		return
	}
	t.splitWide(line, x)
	t.splitWide(line, x+n)
	copy(line[x:], line[x+n:])
	fill(line[cols-n:], t.eraseCell())
	t.dirty = true
}

// scrollUp moves rows top..bot (inclusive) up by n, blanking the n rows
// that open at the bottom. With toScrollback, on the main screen with the
// region starting at the top row, the rows that leave go to scrollback —
// the xterm rule, so a shell's output is kept even under a status line
// that set a bottom margin.
func (t *Terminal) scrollUp(top, bot, n int, toScrollback bool) {
	h := bot - top + 1
	n = min(n, h)
	if n <= 0 {
		return
	}
	t.dirty = true
	region := t.scr.lines[top : bot+1]
	if toScrollback && top == 0 && t.scr == &t.main {
		for _, line := range region[:n] {
			t.sb.push(line)
		}
	}
	if n == 1 {
		first := region[0]
		copy(region, region[1:])
		region[h-1] = first
	} else {
		t.scratch = append(t.scratch[:0], region[:n]...)
		copy(region, region[n:])
		copy(region[h-n:], t.scratch)
	}
	e := t.eraseCell()
	for _, line := range region[h-n:] {
		fill(line, e)
	}
}

// scrollDown moves rows top..bot down by n, blanking the n rows that open
// at the top. Rows pushed past bot are gone.
func (t *Terminal) scrollDown(top, bot, n int) {
	h := bot - top + 1
	n = min(n, h)
	if n <= 0 {
		return
	}
	t.dirty = true
	region := t.scr.lines[top : bot+1]
	t.scratch = append(t.scratch[:0], region[h-n:]...)
	copy(region[n:], region[:h-n])
	copy(region, t.scratch)
	e := t.eraseCell()
	for _, line := range region[:n] {
		fill(line, e)
	}
}
