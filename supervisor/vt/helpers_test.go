package vt

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// newTerm returns a terminal fed with input.
func newTerm(t testing.TB, cols, rows int, input string, opts ...Option) *Terminal {
	t.Helper()
	term := New(cols, rows, opts...)
	write(t, term, input)
	return term
}

// write feeds s to term.
func write(t testing.TB, term *Terminal, s string) {
	t.Helper()
	n, err := term.Write([]byte(s))
	if err != nil || n != len(s) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(s))
	}
}

// cell returns the cell at column x, row y of the shown screen.
func cell(term *Terminal, x, y int) Cell {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.scr.line(y)[x]
}

// cursor returns the cursor position.
func cursor(term *Terminal) (x, y int) {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.x, term.y
}

// wantText fails unless the screen's text is want (rows joined by "\n";
// trailing empty rows may be left out of want).
func wantText(t testing.TB, term *Terminal, want string) {
	t.Helper()
	got := strings.TrimRight(term.Text(), "\n")
	if got != strings.TrimRight(want, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", quoteLines(got), quoteLines(want))
	}
}

func quoteLines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "  %q\n", l)
	}
	return b.String()
}

// wantCursor fails unless the cursor is at x, y.
func wantCursor(t testing.TB, term *Terminal, x, y int) {
	t.Helper()
	if gx, gy := cursor(term); gx != x || gy != y {
		t.Errorf("cursor at %d,%d; want %d,%d", gx, gy, x, y)
	}
}

// checkInvariants fails if the terminal's state is inconsistent: the
// cursor out of the screen, a row of the wrong width, half a wide
// character, a scroll region outside the screen.
func checkInvariants(t testing.TB, term *Terminal) {
	t.Helper()
	term.mu.Lock()
	defer term.mu.Unlock()
	if term.x < 0 || term.x >= term.cols || term.y < 0 || term.y >= term.rows {
		t.Fatalf("cursor %d,%d outside %dx%d", term.x, term.y, term.cols, term.rows)
	}
	if term.top < 0 || term.bot >= term.rows || term.top >= term.bot && term.rows > 1 {
		t.Fatalf("scroll region %d..%d in %d rows", term.top, term.bot, term.rows)
	}
	if len(term.tabs) != term.cols {
		t.Fatalf("%d tab stops for %d columns", len(term.tabs), term.cols)
	}
	for name, s := range map[string]*screen{"main": &term.main, "alt": &term.alt} {
		if len(s.rowmap) != term.rows || s.cols != term.cols || len(s.cells) != term.rows*term.cols {
			t.Fatalf("%s screen has %d rows of %d, %d cells, want %dx%d", name, len(s.rowmap), s.cols, len(s.cells), term.cols, term.rows)
		}
		seen := make(map[int32]bool)
		for _, r := range s.rowmap {
			if seen[r] || r < 0 || int(r) >= term.rows {
				t.Fatalf("%s row map %v is not a permutation", name, s.rowmap)
			}
			seen[r] = true
		}
		for r, e := range s.ext {
			row := s.cells[r*s.cols : (r+1)*s.cols]
			if e < 0 || int(e) > s.cols {
				t.Fatalf("%s row %d: extent %d of %d columns", name, r, e, s.cols)
			}
			for x := int(e); x < s.cols; x++ {
				if row[x] != blankCell {
					t.Fatalf("%s row %d: cell %d is %+v, past the extent %d", name, r, x, row[x], e)
				}
			}
		}
		if (s.logs != nil) != (s == &term.main) || s.logs != nil && len(s.logs) != term.rows {
			t.Fatalf("%s screen has %d row logs", name, len(s.logs))
		}
		for y := range s.rowmap {
			l := s.log(y)
			if l == nil || !l.ok {
				continue
			}
			line := s.line(y)
			got := decodeLine(nil, l.b)
			if int(l.n) > len(line) || !slices.Equal(got, line[:l.n]) {
				t.Fatalf("%s row %d: log decodes to\n%+v\nrow is\n%+v", name, y, got, line[:min(int(l.n), len(line))])
			}
			for x := int(l.n); x < len(line); x++ {
				if line[x] != blankCell {
					t.Fatalf("%s row %d: cell %d is %+v, past the log's %d cells", name, y, x, line[x], l.n)
				}
			}
			trimmed := len(line)
			for trimmed > 0 && isBlank(&line[trimmed-1]) {
				trimmed--
			}
			if got := decodeLine(nil, l.encoded()); !slices.Equal(got, line[:trimmed]) {
				t.Fatalf("%s row %d: trimmed log decodes to\n%+v\nrow is\n%+v", name, y, got, line[:trimmed])
			}
		}
		for y, line := range s.rows() {
			if len(line) != term.cols {
				t.Fatalf("%s row %d has %d cells, want %d", name, y, len(line), term.cols)
			}
			if err := checkLine(line); err != nil {
				t.Fatalf("%s row %d: %v", name, y, err)
			}
		}
	}
	for i := range term.sb.n {
		if err := checkLine(decodeLine(nil, term.sb.at(i))); err != nil {
			t.Fatalf("scrollback line %d: %v", i, err)
		}
	}
}

// checkLine reports a wide character missing a half.
func checkLine(line []Cell) error {
	for x, c := range line {
		switch c.Width {
		case 0:
			if x == 0 || line[x-1].Width != 2 {
				return fmt.Errorf("column %d: right half without a left half", x)
			}
		case 1:
		case 2:
			if x+1 >= len(line) || line[x+1].Width != 0 {
				return fmt.Errorf("column %d: left half without a right half", x)
			}
		default:
			return fmt.Errorf("column %d: width %d", x, c.Width)
		}
	}
	return nil
}
