package vt

import (
	"fmt"
	"testing"
)

func TestResizeShrinkRows(t *testing.T) {
	term := newTerm(t, 10, 5, "1\r\n2\r\n3\r\n4\r\n5")
	term.Resize(10, 3)
	wantText(t, term, "3\n4\n5")
	wantCursor(t, term, 1, 2)
	if got := scrollbackTexts(term); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("scrollback = %q", got)
	}
	checkInvariants(t, term)
}

func TestResizeShrinkRowsBelowCursor(t *testing.T) {
	// Rows below the cursor are dropped before any row above it moves.
	term := newTerm(t, 10, 5, "1\r\n2\x1b[5;1Hjunk\x1b[2;2H")
	term.Resize(10, 3)
	wantText(t, term, "1\n2")
	wantCursor(t, term, 1, 1)
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen = %d", n)
	}
}

func TestResizeGrowRowsPullsBackScrollback(t *testing.T) {
	term := newTerm(t, 10, 5, "1\r\n2\r\n3\r\n4\r\n5")
	term.Resize(10, 3)
	term.Resize(10, 6)
	wantText(t, term, "1\n2\n3\n4\n5")
	wantCursor(t, term, 1, 4)
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen = %d", n)
	}
	checkInvariants(t, term)
}

func TestResizeGrowRowsOnAltScreen(t *testing.T) {
	term := newTerm(t, 10, 3, "1\r\n2\r\n3\r\n4\x1b[?1049h\x1b[Hx")
	term.Resize(10, 5)
	wantText(t, term, "x")
	wantCursor(t, term, 1, 0)
	write(t, term, "\x1b[?1049l")
	wantText(t, term, "2\n3\n4")
	checkInvariants(t, term)
}

func TestResizeColumns(t *testing.T) {
	term := newTerm(t, 10, 3, "abcd日本xy\x1b[2;10H")
	term.Resize(7, 3)
	wantText(t, term, "abcd日") // 本 would straddle the new edge
	wantCursor(t, term, 6, 1)
	checkInvariants(t, term)
	term.Resize(12, 3)
	wantText(t, term, "abcd日")
	write(t, term, "\x1b[1;12Hz\x1b[2;1H\t\t")
	wantText(t, term, "abcd日     z")
	wantCursor(t, term, 11, 1) // tab stops cover the new columns
	checkInvariants(t, term)
}

func TestResizeResetsRegionAndClampsSavedCursor(t *testing.T) {
	term := newTerm(t, 10, 6, "\x1b[2;5r\x1b[6;10H\x1b7")
	term.Resize(5, 4)
	write(t, term, "\x1b8")
	wantCursor(t, term, 4, 3)
	write(t, term, "\x1b[4;1H\n")
	if n := term.ScrollbackLen(); n == 0 {
		t.Error("the scroll region survived the resize")
	}
	checkInvariants(t, term)
}

func TestResizeTiny(t *testing.T) {
	term := newTerm(t, 10, 3, "hello 日本")
	term.Resize(0, -5)
	if c, r := term.Size(); c != 1 || r != 1 {
		t.Fatalf("Size = %d,%d", c, r)
	}
	write(t, term, "日本語 abc\r\n\x1b[5@\x1b[3P")
	checkInvariants(t, term)
}

func TestSizeLimits(t *testing.T) {
	term := New(1<<30, 1<<30)
	if c, r := term.Size(); c != MaxCols || r != MaxRows {
		t.Errorf("Size = %d,%d", c, r)
	}
	term.Resize(5, 1<<40)
	if c, r := term.Size(); c != 5 || r != MaxRows {
		t.Errorf("Size after Resize = %d,%d", c, r)
	}
}

func scrollbackTexts(term *Terminal) []string {
	var lines []string
	for i := range term.ScrollbackLen() {
		lines = append(lines, term.ScrollbackText(i))
	}
	return lines
}
