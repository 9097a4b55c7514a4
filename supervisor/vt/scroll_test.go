package vt

import (
	"fmt"
	"strings"
	"testing"
)

func TestScrollRegion(t *testing.T) {
	base := fillScreen(4, 6) // rows A..F
	tests := []struct {
		name   string
		input  string
		screen string
		x, y   int
	}{
		{"LF at the bottom margin scrolls the region", "\x1b[2;4r\x1b[4;1H\n", "AAAA\nCCCC\nDDDD\n\nEEEE\nFFFF", 0, 3},
		{"LF below the region does not scroll", "\x1b[2;4r\x1b[6;1H\n", "AAAA\nBBBB\nCCCC\nDDDD\nEEEE\nFFFF", 0, 5},
		{"IND at the bottom margin", "\x1b[2;4r\x1b[4;2H\x1bD", "AAAA\nCCCC\nDDDD\n\nEEEE\nFFFF", 1, 3},
		{"RI at the top margin", "\x1b[2;4r\x1b[2;1H\x1bM", "AAAA\n\nBBBB\nCCCC\nEEEE\nFFFF", 0, 1},
		{"RI at the top of the screen", "\x1b[H\x1bM", "\nAAAA\nBBBB\nCCCC\nDDDD\nEEEE", 0, 0},
		{"IL", "\x1b[2;4r\x1b[3;3H\x1b[L", "AAAA\nBBBB\n\nCCCC\nEEEE\nFFFF", 0, 2},
		{"IL many", "\x1b[2;4r\x1b[3;3H\x1b[9L", "AAAA\nBBBB\n\n\nEEEE\nFFFF", 0, 2},
		{"IL outside the region", "\x1b[2;4r\x1b[5;3H\x1b[L", "AAAA\nBBBB\nCCCC\nDDDD\nEEEE\nFFFF", 2, 4},
		{"DL", "\x1b[2;4r\x1b[2;3H\x1b[M", "AAAA\nCCCC\nDDDD\n\nEEEE\nFFFF", 0, 1},
		{"DL many", "\x1b[2;4r\x1b[3;3H\x1b[5M", "AAAA\nBBBB\n\n\nEEEE\nFFFF", 0, 2},
		{"DL without region", "\x1b[1;1H\x1b[2M", "CCCC\nDDDD\nEEEE\nFFFF", 0, 0},
		{"SU", "\x1b[2;4r\x1b[2S", "AAAA\nDDDD\n\n\nEEEE\nFFFF", 0, 0},
		{"SD", "\x1b[2;4r\x1b[2T", "AAAA\n\n\nBBBB\nEEEE\nFFFF", 0, 0},
		{"SD with more parameters is not a scroll", "\x1b[1;2;3;4;5T", "AAAA\nBBBB\nCCCC\nDDDD\nEEEE\nFFFF", 3, 5},
		{"SU whole screen", "\x1b[3S", "DDDD\nEEEE\nFFFF", 3, 5},
		{"invalid region is ignored", "\x1b[2;4r\x1b[4;4r\x1b[4;1H\n", "AAAA\nCCCC\nDDDD\n\nEEEE\nFFFF", 0, 3},
		{"region reset", "\x1b[2;4r\x1b[r\x1b[6;1H\n", "BBBB\nCCCC\nDDDD\nEEEE\nFFFF", 0, 5},
		{"wrap at the bottom margin scrolls the region", "\x1b[2;4r\x1b[4;1Hxxxxy", "AAAA\nCCCC\nxxxx\ny\nEEEE\nFFFF", 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 4, 6, base+tt.input)
			wantText(t, term, tt.screen)
			wantCursor(t, term, tt.x, tt.y)
			checkInvariants(t, term)
		})
	}
}

// TestScrollback checks which lines reach the scrollback: those scrolled
// off the top of the main screen by line feeds or SU, with a region that
// starts at the top row, and none from the alternate screen, DL, or a
// region lower down.
func TestScrollback(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"line feeds", "a\r\nb\r\nc\r\nd\r\ne", []string{"a", "b"}},
		{"SU", "a\r\nb\r\nc\x1b[2S", []string{"a", "b"}},
		{"region at the top", "a\r\nb\r\nc\x1b[1;2r\x1b[2;1H\n\n", []string{"a", "b"}},
		{"region lower down", "a\r\nb\r\nc\x1b[2;3r\x1b[3;1H\n\n", nil},
		{"DL", "a\r\nb\r\nc\x1b[H\x1b[2M", nil},
		{"alternate screen", "\x1b[?1049ha\r\nb\r\nc\r\nd\r\ne", nil},
		{"wrapped text", "abcdefghijklmno", []string{"abcd"}},
		{"colours kept, blanks trimmed", "\x1b[41ma\x1b[m  \r\nb\r\nc\r\nd", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 4, 3, tt.input)
			var got []string
			for i := range term.ScrollbackLen() {
				got = append(got, term.ScrollbackText(i))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("scrollback = %q; want %q", got, tt.want)
			}
			checkInvariants(t, term)
		})
	}
}

func TestScrollbackLine(t *testing.T) {
	term := newTerm(t, 8, 2, "\x1b[1;32mab\x1b[44m \x1b[m  \r\n\r\n")
	line := term.ScrollbackLine(0)
	if len(line) != 3 {
		t.Fatalf("line = %+v; want 3 cells (trailing blanks trimmed, the blue one kept)", line)
	}
	if line[0].Rune != 'a' || line[0].Attr != Bold || line[0].Fg != IndexedColor(2) {
		t.Errorf("cell 0 = %+v", line[0])
	}
	if line[2].Bg != IndexedColor(4) {
		t.Errorf("cell 2 = %+v", line[2])
	}
	line[0].Rune = 'z'
	if term.ScrollbackLine(0)[0].Rune != 'a' {
		t.Error("ScrollbackLine returned the terminal's own storage")
	}
	if term.ScrollbackLine(-1) != nil || term.ScrollbackLine(1) != nil || term.ScrollbackText(5) != "" {
		t.Error("out of range lines are not nil")
	}
}

// TestScrollbackRing checks that the ring keeps the newest lines in order
// once full, and that a full ring scrolls without allocating.
func TestScrollbackRing(t *testing.T) {
	term := New(10, 3, WithScrollback(5))
	for i := range 20 {
		write(t, term, fmt.Sprintf("line %d\r\n", i))
	}
	if n := term.ScrollbackLen(); n != 5 {
		t.Fatalf("ScrollbackLen = %d; want 5", n)
	}
	for i := range 5 {
		if got, want := term.ScrollbackText(i), fmt.Sprintf("line %d", 13+i); got != want {
			t.Errorf("line %d = %q; want %q", i, got, want)
		}
	}
	line := []byte("line 99\r\n")
	allocs := testing.AllocsPerRun(100, func() { term.Write(line) })
	if allocs != 0 {
		t.Errorf("%v allocations per scrolled line with a full scrollback", allocs)
	}
	write(t, term, "\x1b[3J")
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("after ED 3, ScrollbackLen = %d", n)
	}
	write(t, term, "a\r\nb\r\nc\r\nd\r\n")
	if got := term.ScrollbackText(0); !strings.HasPrefix(got, "line 99") {
		t.Errorf("after ED 3 and more output, oldest line = %q", got)
	}
}

func TestNoScrollback(t *testing.T) {
	term := newTerm(t, 10, 2, "a\r\nb\r\nc\r\n", WithScrollback(0))
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen = %d", n)
	}
	wantText(t, term, "c")
}
