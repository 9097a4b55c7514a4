package vt

import "slices"

// screen is one of the two screen buffers (main and alternate).
//
// The cells live in one block, row after row, and rowmap says which block
// row shows on which screen row. Scrolling a region rotates rowmap — a few
// hundred bytes of int32 for a tall screen — instead of copying every cell
// up a line; and since rowmap holds no pointers, the rotation is a plain
// memmove with no write barriers.
type screen struct {
	// cells holds len(rowmap) rows of cols cells.
	cells []Cell
	// rowmap maps a screen row to its row in cells.
	rowmap []int32
	// ext holds, for each row of cells, a column from which on every cell
	// is blankCell. It is an upper bound, not always the exact end of the
	// text: it lets a line that scrolls off be trimmed and cleared without
	// scanning the (typically empty) right half of a wide screen.
	ext []int32
	// logs holds, for each row of cells, its scrollback encoding while
	// the row is only appended to (see rowLog). Only the main screen has
	// them: nothing scrolls from the alternate screen into scrollback.
	logs []rowLog
	// blank is one row of blankCell: clearing a row is then a single copy
	// instead of a fill.
	blank []Cell
	cols  int
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

// newScreen returns a blank screen, with row logs if logged.
func newScreen(cols, rows int, logged bool) screen {
	s := screen{
		cells:  make([]Cell, cols*rows),
		rowmap: make([]int32, rows),
		ext:    make([]int32, rows),
		blank:  make([]Cell, cols),
		cols:   cols,
	}
	if logged {
		s.logs = make([]rowLog, rows)
	}
	fill(s.blank, blankCell)
	fill(s.cells, blankCell)
	for y := range s.rowmap {
		s.rowmap[y] = int32(y)
		if logged {
			s.logs[y].reset()
		}
	}
	return s
}

// log returns row y's log, or nil on a screen without logs.
func (s *screen) log(y int) *rowLog {
	if s.logs == nil {
		return nil
	}
	return &s.logs[s.rowmap[y]]
}

// line returns screen row y. Its capacity ends with the row, so no append
// can spill into the next one.
func (s *screen) line(y int) []Cell {
	p := int(s.rowmap[y]) * s.cols
	return s.cells[p : p+s.cols : p+s.cols]
}

// extend records that row y may hold something other than blanks up to
// column to.
func (s *screen) extend(y, to int) {
	r := s.rowmap[y]
	if int32(to) > s.ext[r] {
		s.ext[r] = int32(to)
	}
}

// used returns row y up to its extent: the cells that may not be blank.
func (s *screen) used(y int) []Cell {
	r := int(s.rowmap[y])
	p := r * s.cols
	return s.cells[p : p+int(s.ext[r])]
}

// clearLine fills row y with c, touching only the cells that are not
// already blank when c is a blank.
func (s *screen) clearLine(y int, c Cell) {
	r := s.rowmap[y]
	p := int(r) * s.cols
	if c == blankCell {
		copy(s.cells[p:p+int(s.ext[r])], s.blank)
		s.ext[r] = 0
		if s.logs != nil {
			s.logs[r].reset()
		}
		return
	}
	fill(s.cells[p:p+s.cols], c)
	s.ext[r] = int32(s.cols)
	if s.logs != nil {
		s.logs[r].ok = false
	}
}

// clear fills the whole screen with c.
func (s *screen) clear(c Cell) {
	fill(s.cells, c)
	e := int32(0)
	if c != blankCell {
		e = int32(s.cols)
	}
	for r := range s.ext {
		s.ext[r] = e
	}
	for r := range s.logs {
		if e == 0 {
			s.logs[r].reset()
		} else {
			s.logs[r].ok = false
		}
	}
}

// rows returns the screen's rows in order, as slices of its cells.
func (s *screen) rows() [][]Cell {
	lines := make([][]Cell, len(s.rowmap))
	for y := range lines {
		lines[y] = s.line(y)
	}
	return lines
}

// setRows replaces the screen's contents with lines, which must each be
// cols cells long.
func (s *screen) setRows(lines [][]Cell, cols int) {
	rows := len(lines)
	logged := s.logs != nil
	*s = screen{
		cells:  make([]Cell, cols*rows),
		rowmap: make([]int32, rows),
		ext:    make([]int32, rows),
		blank:  make([]Cell, cols),
		cols:   cols,
		saved:  s.saved,
	}
	fill(s.blank, blankCell)
	if logged {
		s.logs = make([]rowLog, rows)
	}
	for y, line := range lines {
		s.rowmap[y] = int32(y)
		copy(s.line(y), line)
		end := len(line)
		for end > 0 && line[end-1] == blankCell {
			end--
		}
		s.ext[y] = int32(end)
		if logged {
			// A log starts only on a blank row.
			s.logs[y].reset()
			s.logs[y].ok = end == 0
		}
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

// fill sets the cells of part of a row to c, by copying the blank row
// when c is a blank.
func (s *screen) fill(cells []Cell, c Cell) {
	if c == blankCell {
		copy(cells, s.blank)
		return
	}
	fill(cells, c)
}

// eraseCell is what erasing leaves behind: a blank in the current
// background colour (xterm's background colour erase), nothing else.
func (t *Terminal) eraseCell() Cell {
	return Cell{Width: 1, Bg: t.pen.Bg}
}

// splitWide makes sure no wide character straddles the boundary between
// columns x-1 and x, blanking both halves of one that does. Every operation
// that overwrites, erases or shifts part of a line calls it at the edges of
// the part, so a line never holds half a wide character. The cells it
// blanks held a character, so they are within the row's extent already.
func (t *Terminal) splitWide(line []Cell, x int) {
	if x > 0 && x < len(line) && line[x].Width == 0 {
		e := t.eraseCell()
		line[x-1], line[x] = e, e
	}
}

// eraseRange blanks columns [from, to) of row y.
func (t *Terminal) eraseRange(y, from, to int) {
	from, to = max(from, 0), min(to, t.cols)
	if from >= to {
		return
	}
	scr := t.scr
	line := scr.line(y)
	t.splitWide(line, from)
	t.splitWide(line, to)
	e := t.eraseCell()
	scr.fill(line[from:to], e)
	if l := scr.log(y); l != nil {
		l.erased(from, e)
	}
	r := scr.rowmap[y]
	switch {
	case e != blankCell:
		scr.extend(y, to)
	case to >= int(scr.ext[r]) && int32(from) < scr.ext[r]:
		// Everything from `from` on is blank now.
		scr.ext[r] = int32(from)
	}
	t.dirty = true
}

// insertBlanks shifts the cells of row y from column x right by n, dropping
// those pushed past the end, and blanks the n cells opened at x.
func (t *Terminal) insertBlanks(y, x, n int) {
	cols := t.cols
	n = min(n, cols-x)
	if n <= 0 {
		return
	}
	line := t.scr.line(y)
	if l := t.scr.log(y); l != nil {
		l.ok = false
	}
	t.splitWide(line, x)
	copy(line[x+n:], line[x:cols-n])
	t.scr.fill(line[x:x+n], t.eraseCell())
	if line[cols-1].Width == 2 {
		// Its right half was pushed off the line.
		line[cols-1] = t.eraseCell()
	}
	r := t.scr.rowmap[y]
	t.scr.extend(y, min(cols, max(int(t.scr.ext[r]), x)+n))
	t.dirty = true
}

// deleteCells removes n cells of row y at column x, shifting the rest of
// the line left and blanking the cells freed at the end.
func (t *Terminal) deleteCells(y, x, n int) {
	cols := t.cols
	n = min(n, cols-x)
	if n <= 0 {
		return
	}
	line := t.scr.line(y)
	if l := t.scr.log(y); l != nil {
		l.ok = false
	}
	t.splitWide(line, x)
	t.splitWide(line, x+n)
	copy(line[x:], line[x+n:])
	e := t.eraseCell()
	t.scr.fill(line[cols-n:], e)
	if e != blankCell {
		t.scr.extend(y, cols)
	}
	t.dirty = true
}

// scrollUp moves rows top..bot (inclusive) up by n, blanking the n rows
// that open at the bottom. With toScrollback, on the main screen with the
// region starting at the top row, the rows that leave go to scrollback —
// the xterm rule, so a shell's output is kept even under a status line
// that set a bottom margin.
func (t *Terminal) scrollUp(top, bot, n int, toScrollback bool) {
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	t.dirty = true
	scr := t.scr
	if toScrollback && top == 0 && scr == &t.main {
		for y := range n {
			if l := scr.log(y); l != nil && l.ok {
				t.sb.pushEncoded(l.encoded())
			} else {
				t.sb.push(scr.used(y))
			}
		}
	}
	rotateUp(scr.rowmap[top:bot+1], n)
	e := t.eraseCell()
	for y := bot - n + 1; y <= bot; y++ {
		scr.clearLine(y, e)
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
	rotateUp(t.scr.rowmap[top:bot+1], h-n)
	e := t.eraseCell()
	for y := top; y < top+n; y++ {
		t.scr.clearLine(y, e)
	}
}

// rotateUp moves the first n rows of m to its end.
func rotateUp(m []int32, n int) {
	if n == 1 {
		first := m[0]
		copy(m, m[1:])
		m[len(m)-1] = first
		return
	}
	slices.Reverse(m[:n])
	slices.Reverse(m[n:])
	slices.Reverse(m)
}
