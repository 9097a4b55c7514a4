package vt

import "testing"

// fillScreen writes rows of letters: "AAAAAAAAAA", "BBBBBBBBBB", ...
func fillScreen(cols, rows int) string {
	s := ""
	for y := range rows {
		if y > 0 {
			s += "\r\n"
		}
		for range cols {
			s += string(rune('A' + y))
		}
	}
	return s
}

func TestErase(t *testing.T) {
	base := fillScreen(6, 4) + "\x1b[2;3H" // cursor on the B row, column 2
	tests := []struct {
		name   string
		input  string
		screen string
	}{
		{"ED 0", "\x1b[J", "AAAAAA\nBB"},
		{"ED 1", "\x1b[1J", "\n   BBB\nCCCCCC\nDDDDDD"},
		{"ED 2", "\x1b[2J", ""},
		{"ED 3 keeps the screen", "\x1b[3J", "AAAAAA\nBBBBBB\nCCCCCC\nDDDDDD"},
		{"EL 0", "\x1b[K", "AAAAAA\nBB\nCCCCCC\nDDDDDD"},
		{"EL 1", "\x1b[1K", "AAAAAA\n   BBB\nCCCCCC\nDDDDDD"},
		{"EL 2", "\x1b[2K", "AAAAAA\n\nCCCCCC\nDDDDDD"},
		{"ECH", "\x1b[2X", "AAAAAA\nBB  BB\nCCCCCC\nDDDDDD"},
		{"ECH past the end", "\x1b[99X", "AAAAAA\nBB\nCCCCCC\nDDDDDD"},
		{"ICH", "\x1b[2@", "AAAAAA\nBB  BB\nCCCCCC\nDDDDDD"},
		{"ICH past the end", "\x1b[99@", "AAAAAA\nBB\nCCCCCC\nDDDDDD"},
		{"DCH", "\x1b[2P", "AAAAAA\nBBBB\nCCCCCC\nDDDDDD"},
		{"DCH past the end", "\x1b[99P", "AAAAAA\nBB\nCCCCCC\nDDDDDD"},
		{"selective ED is ED", "\x1b[?J", "AAAAAA\nBB"},
		{"selective EL is EL", "\x1b[?2K", "AAAAAA\n\nCCCCCC\nDDDDDD"},
		{"unknown ED is ignored", "\x1b[7J", "AAAAAA\nBBBBBB\nCCCCCC\nDDDDDD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 6, 4, base+tt.input)
			wantText(t, term, tt.screen)
			wantCursor(t, term, 2, 1)
			checkInvariants(t, term)
		})
	}
}

// TestEraseBackground checks background colour erase: erased cells take
// the current background, and nothing else of the pen.
func TestEraseBackground(t *testing.T) {
	blue := IndexedColor(4)
	erased := Cell{Width: 1, Bg: blue}
	tests := []struct {
		name  string
		input string
		x, y  int
	}{
		{"ED", "\x1b[2J", 3, 2},
		{"EL", "\x1b[K", 5, 0},
		{"ECH", "\x1b[X", 0, 0},
		{"ICH", "\x1b[@", 0, 0},
		{"DCH", "\x1b[P", 5, 0},
		{"IL", "\x1b[L", 3, 0},
		{"DL", "\x1b[M", 3, 3},
		{"SU", "\x1b[S", 3, 3},
		{"SD", "\x1b[T", 3, 0},
		{"scroll by line feed", "\x1b[4;1H\n", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 6, 4, fillScreen(6, 4)+"\x1b[H\x1b[1;31;44m"+tt.input)
			if c := cell(term, tt.x, tt.y); c != erased {
				t.Errorf("cell %d,%d = %+v; want %+v", tt.x, tt.y, c, erased)
			}
		})
	}
}

func TestEraseClearsPendingWrap(t *testing.T) {
	term := newTerm(t, 5, 2, "abcde\x1b[Kx")
	wantText(t, term, "abcdx")
	wantCursor(t, term, 4, 0)
}
