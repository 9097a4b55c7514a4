package vt

// Resize changes the terminal's size (clamped like New's). Lines are
// cut or padded, not reflowed. When the screen loses rows, the rows above
// the cursor that no longer fit go to scrollback and the rows below it are
// dropped, so the line being typed on stays in view (xterm's rule). When the
// main screen gains rows, lines come back from the scrollback to fill them
// from the top, the cursor moving down with its line, so growing a shell's
// window undoes shrinking it. The scroll region is reset to the whole
// screen, as in xterm.
func (t *Terminal) Resize(cols, rows int) {
	cols, rows = clampSize(cols, rows)
	t.mu.Lock()
	defer t.mu.Unlock()
	if cols == t.cols && rows == t.rows {
		return
	}
	if cols != t.cols {
		for _, s := range []*screen{&t.main, &t.alt} {
			lines := s.rows()
			for y, line := range lines {
				lines[y] = resizeLine(line, cols)
			}
			s.setRows(lines, cols)
		}
		t.tabs = defaultTabs(t.tabs[:0], cols)
		t.cols = cols
		t.wrapPending = false
	}
	if rows != t.rows {
		t.resizeRows(rows)
	}
	t.top, t.bot = 0, t.rows-1
	t.x = min(t.x, t.cols-1)
	t.y = min(t.y, t.rows-1)
	for _, s := range []*screen{&t.main, &t.alt} {
		s.saved.x = min(s.saved.x, t.cols-1)
		s.saved.y = min(s.saved.y, t.rows-1)
	}
	t.dirty = true
	t.endChange()
}

// resizeLine returns line cut or padded to cols cells. It may modify line.
func resizeLine(line []Cell, cols int) []Cell {
	if cols <= len(line) {
		line = line[:cols:cols]
		if line[cols-1].Width == 2 {
			// The right half of a wide character was cut off.
			line[cols-1] = blankCell
		}
		return line
	}
	grown := make([]Cell, cols)
	copy(grown, line)
	fill(grown[len(line):], blankCell)
	return grown
}

// resizeRows changes the number of rows of both screens.
func (t *Terminal) resizeRows(rows int) {
	for _, s := range []*screen{&t.main, &t.alt} {
		active := s == t.scr
		// The row to keep in view: the cursor on the shown screen, the
		// saved cursor (where 1049 will put it back) on the other.
		cy := s.saved.y
		if active {
			cy = t.y
		}
		var shift int
		if rows < t.rows {
			shift = t.shrinkRows(s, rows, cy)
		} else {
			shift = t.growRows(s, rows, active)
		}
		s.saved.y = max(s.saved.y-shift, 0)
		if active {
			t.y = max(t.y-shift, 0)
		}
	}
	t.rows = rows
}

// shrinkRows cuts s to rows rows keeping row cy, and returns how many rows
// went off the top (to scrollback, for the main screen).
func (t *Terminal) shrinkRows(s *screen, rows, cy int) int {
	lines := s.rows()
	off := max(cy-(rows-1), 0)
	if s == &t.main {
		for _, line := range lines[:off] {
			t.sb.push(line)
		}
	}
	s.setRows(lines[off:off+rows], t.cols)
	return off
}

// growRows adds rows to s: from the scrollback at the top for the main
// screen when it is shown, blank ones at the bottom otherwise. It returns
// minus the number of rows added above the existing ones.
func (t *Terminal) growRows(s *screen, rows int, active bool) int {
	cols := t.cols
	old := s.rows()
	back := 0
	if s == &t.main && active {
		back = min(rows-len(old), t.sb.n)
	}
	lines := make([][]Cell, back, rows)
	for i := back - 1; i >= 0; i-- {
		line := make([]Cell, cols)
		fill(line, blankCell)
		copy(line, decodeLine(nil, t.sb.popNewest()))
		if line[cols-1].Width == 2 {
			line[cols-1] = blankCell
		}
		lines[i] = line
	}
	lines = append(lines, old...)
	blank := make([]Cell, cols)
	fill(blank, blankCell)
	for len(lines) < rows {
		lines = append(lines, blank)
	}
	s.setRows(lines, cols)
	return -back
}
