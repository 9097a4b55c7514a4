package vt

import "strings"

// Snapshot is a copy of the visible screen that a painter can read on its
// own goroutine while the terminal goes on changing.
type Snapshot struct {
	Cols, Rows int
	// Lines holds Rows rows of exactly Cols cells each.
	Lines  [][]Cell
	Cursor Cursor
	// AltScreen says the alternate screen is shown (a full-screen TUI).
	AltScreen bool
	Title     string
	// Seq is the terminal's generation when the copy was taken (see
	// Terminal.Seq); a painter that sees the same Seq twice can skip a
	// frame.
	Seq   uint64
	Modes Modes
	// Combining resolves Cell.Comb: Combining[c.Comb] are the marks drawn
	// on c. It is shared with the terminal, which only ever appends, and
	// must not be modified.
	Combining []string

	// cells backs Lines, reused by SnapshotInto.
	cells []Cell
}

// Cursor is where the cursor is drawn and whether it is.
type Cursor struct {
	X, Y    int
	Visible bool
}

// Snapshot returns a copy of the visible screen.
func (t *Terminal) Snapshot() *Snapshot {
	s := new(Snapshot)
	t.SnapshotInto(s)
	return s
}

// SnapshotInto copies the visible screen into s, reusing its memory when
// the size has not changed, so a painter that keeps one Snapshot copies the
// screen every frame without allocating.
func (t *Terminal) SnapshotInto(s *Snapshot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cols, rows := t.cols, t.rows
	if cap(s.cells) < cols*rows {
		s.cells = make([]Cell, cols*rows)
	}
	s.cells = s.cells[:cols*rows]
	if cap(s.Lines) < rows {
		s.Lines = make([][]Cell, rows)
	}
	s.Lines = s.Lines[:rows]
	for y := range rows {
		dst := s.cells[y*cols : (y+1)*cols : (y+1)*cols]
		copy(dst, t.scr.line(y))
		s.Lines[y] = dst
	}
	s.Cols, s.Rows = cols, rows
	s.Cursor = Cursor{X: t.x, Y: t.y, Visible: t.modes.CursorVisible}
	s.AltScreen = t.scr == &t.alt
	s.Title = t.title
	s.Seq = t.seq
	s.Modes = t.modes
	s.Combining = t.combs
}

// Grapheme returns the text of cell c: its character with any combining
// marks, a space for an empty cell, and "" for the right half of a wide
// character (the left half already drew it).
func (s *Snapshot) Grapheme(c Cell) string {
	return CellText(c, s.Combining)
}

// CellText is Grapheme for a painter that holds a snapshot's Combining
// table rather than the snapshot (a scrolled view mixing in scrollback).
func CellText(c Cell, combs []string) string {
	switch {
	case c.Width == 0:
		return ""
	case c.Rune == 0:
		return " "
	case c.Comb == 0 || int(c.Comb) >= len(combs):
		return string(c.Rune)
	default:
		return string(c.Rune) + combs[c.Comb]
	}
}

// Text returns the visible screen as plain text: one line per row joined
// by "\n", trailing spaces trimmed, each wide character once.
func (t *Terminal) Text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	b.Grow(t.rows * (t.cols + 1))
	for y := range t.rows {
		if y > 0 {
			b.WriteByte('\n')
		}
		writeLine(&b, t.scr.line(y), t.combs)
	}
	return b.String()
}

// writeLine appends line's text to b without its trailing spaces.
func writeLine(b *strings.Builder, line []Cell, combs []string) {
	end := len(line)
	for end > 0 && (line[end-1].Rune == 0 || line[end-1].Rune == ' ') && line[end-1].Comb == 0 {
		end--
	}
	for _, c := range line[:end] {
		switch {
		case c.Width == 0:
		case c.Rune == 0:
			b.WriteByte(' ')
		default:
			b.WriteRune(c.Rune)
			if c.Comb != 0 {
				b.WriteString(combs[c.Comb])
			}
		}
	}
}

// ScrollbackLen returns how many lines the scrollback holds.
func (t *Terminal) ScrollbackLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sb.n
}

// ScrollbackLine returns a copy of scrollback line i, 0 being the oldest.
// The line is as wide as the screen was when it scrolled off, less its
// trailing blank cells: a painter pads it with blanks. Out of range, it
// returns nil.
func (t *Terminal) ScrollbackLine(i int) []Cell {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= t.sb.n {
		return nil
	}
	return decodeLine(nil, t.sb.at(i))
}

// ScrollbackText returns scrollback line i as plain text, like a row of
// Text; out of range it returns "".
func (t *Terminal) ScrollbackText(i int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= t.sb.n {
		return ""
	}
	var b strings.Builder
	writeLine(&b, decodeLine(nil, t.sb.at(i)), t.combs)
	return b.String()
}
