package vt

import (
	"strings"
	"testing"
)

func TestPrint(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		screen string
		x, y   int
	}{
		{"text", "hello", "hello", 5, 0},
		{"CRLF", "ab\r\ncd", "ab\ncd", 2, 1},
		{"LF without CR keeps the column", "ab\ncd", "ab\n  cd", 4, 1},
		{"overwrite", "abcde\rXY", "XYcde", 2, 0},
		{"pending wrap keeps the cursor on the last column", "0123456789", "0123456789", 9, 0},
		{"pending wrap wraps on the next character", "0123456789X", "0123456789\nX", 1, 1},
		{"CR cancels the pending wrap", "0123456789\rX", "X123456789", 1, 0},
		{"CRLF after a full line leaves no blank line", "0123456789\r\nX", "0123456789\nX", 1, 1},
		{"long text wraps", "0123456789abcdefghijKL", "0123456789\nabcdefghij\nKL", 2, 2},
		{"cursor move cancels the pending wrap", "0123456789\x1b[DX", "01234567X9", 9, 0},
		{"no autowrap overwrites the last column", "\x1b[?7l0123456789abc", "012345678c", 9, 0},
		{"no autowrap, one at a time", "\x1b[?7l0123456789a\x1b[?7h", "012345678a", 9, 0},
		{"pending wrap at the bottom scrolls", "\x1b[4;1H0123456789X", "\n\n0123456789\nX", 1, 3},
		{"DEL is ignored", "a\x7fb", "ab", 2, 0},
		{"BEL is not printed", "a\ab", "ab", 2, 0},
		{"invalid UTF-8 prints U+FFFD", "a\xffb\xc3", "a\uFFFDb", 3, 0},
		{"truncated UTF-8 before ASCII", "a\xe6\x97b", "a\uFFFD\uFFFDb", 4, 0},
		{"C1 control as UTF-8 is dropped", "a\u0085b", "ab", 2, 0},
		{"REP", "ab\x1b[3b", "abbbb", 5, 0},
		{"REP wraps", "ab\x1b[10b", "abbbbbbbbb\nbb", 2, 1},
		{"REP with nothing printed", "\x1b[3b", "", 0, 0},
		{"insert mode shifts right", "abcdef\r\x1b[4hXY\x1b[4l", "XYabcdef", 2, 0},
		{"insert mode drops at the edge", "0123456789\r\x1b[4hXY", "XY01234567", 2, 0},
		{"DEC line drawing", "\x1b(0lqqk\x1b(Bx", "┌──┐x", 5, 0},
		{"DEC line drawing all", "\x1b(0`afgjklmnopqrstuvwxyz{|}~\x1b(B", "◆▒°±┘┐┌└┼⎺\n⎻─⎼⎽├┤┴┬│≤\n≥π≠£·", 5, 2},
		{"SO selects G1", "\x1b)0a\x0eq\x0fq", "a─q", 3, 0},
		{"DECALN", "\x1b#8", strings.Repeat("EEEEEEEEEE\n", 4), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 10, 4, tt.input)
			wantText(t, term, tt.screen)
			wantCursor(t, term, tt.x, tt.y)
			checkInvariants(t, term)
		})
	}
}

func TestWideCharacters(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		screen string
		x, y   int
	}{
		{"two cells each", "日本", "日本", 4, 0},
		{"mixed", "a日b", "a日b", 4, 0},
		{"fills to the edge", "abcdef日本", "abcdef日本", 9, 0},
		{"wraps before the last column", "abcdefghi日", "abcdefghi\n日", 2, 1},
		{"overwrite the left half", "日本\rX", "X 本", 1, 0},
		{"overwrite the right half", "日本\r\x1b[CX", " X本", 2, 0},
		{"narrow over wide over narrow", "abc\r日", "日c", 2, 0},
		{"wide over the right half of wide", "日本\x1b[1;2H語", " 語", 3, 0},
		{"erase the right half", "日本\x1b[1;2H\x1b[X", "  本", 1, 0},
		{"erase line from a right half", "日本\x1b[1;4H\x1b[K", "日", 3, 0},
		{"erase line to a left half", "日本\x1b[1;3H\x1b[1K", "", 2, 0},
		{"insert at a right half", "日本\x1b[1;2H\x1b[@", "   本", 1, 0},
		{"insert pushes a wide char off", "abcdefgh日\r\x1b[@", " abcdefgh", 0, 0},
		{"delete at a right half", "日本\x1b[1;2H\x1b[P", " 本", 1, 0},
		{"delete a left half", "a日本\x1b[1;2H\x1b[P", "a 本", 1, 0},
		{"combining mark", "e\u0301x", "e\u0301x", 2, 0},
		{"combining mark on a wide char", "日\u3099", "日\u3099", 2, 0},
		{"combining mark after the pending wrap", "abcdefghij\u0301", "abcdefghij\u0301", 9, 0},
		{"combining mark at column 0 is dropped", "\u0301a", "a", 1, 0},
		{"variation selector", "❤\ufe0f", "❤\ufe0f", 1, 0},
		{"ambiguous width is narrow", "±§", "±§", 2, 0},
		{"emoji is wide", "😀a", "😀a", 3, 0},
		{"no autowrap puts a wide char on the last two columns", "\x1b[?7labcdefghi日", "abcdefgh日", 9, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 10, 3, tt.input)
			wantText(t, term, tt.screen)
			wantCursor(t, term, tt.x, tt.y)
			checkInvariants(t, term)
		})
	}
}

func TestWideCharacterCells(t *testing.T) {
	term := newTerm(t, 10, 2, "a日")
	if c := cell(term, 1, 0); c.Rune != '日' || c.Width != 2 {
		t.Errorf("left half = %+v", c)
	}
	if c := cell(term, 2, 0); c.Rune != 0 || c.Width != 0 {
		t.Errorf("right half = %+v", c)
	}
	if c := cell(term, 3, 0); c != blankCell {
		t.Errorf("after = %+v", c)
	}
}

func TestCombiningTable(t *testing.T) {
	term := newTerm(t, 10, 2, "e\u0301a\u0301o\u0301\u0308")
	a, b, c := cell(term, 0, 0), cell(term, 1, 0), cell(term, 2, 0)
	if a.Comb == 0 || a.Comb != b.Comb {
		t.Errorf("same mark, different ids: %d, %d", a.Comb, b.Comb)
	}
	if got := term.Combining(c.Comb); got != "\u0301\u0308" {
		t.Errorf("marks of o = %q", got)
	}
	s := term.Snapshot()
	if got := s.Grapheme(c); got != "o\u0301\u0308" {
		t.Errorf("Grapheme = %q", got)
	}
	// A cell stacks marks only up to a cap.
	write(t, term, "\r\n"+"x"+strings.Repeat("\u0301", 100))
	if got := term.Combining(cell(term, 0, 1).Comb); len(got) > maxCombBytes {
		t.Errorf("%d bytes of marks on one cell", len(got))
	}
}
