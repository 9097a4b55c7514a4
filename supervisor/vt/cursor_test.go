package vt

import "testing"

func TestCursorMovement(t *testing.T) {
	tests := []struct {
		name  string
		input string
		x, y  int
	}{
		{"CUP", "\x1b[5;10H", 9, 4},
		{"CUP defaults", "\x1b[5;10H\x1b[H", 0, 0},
		{"CUP missing row", "\x1b[;7H", 6, 0},
		{"CUP clamps", "\x1b[99;999H", 19, 9},
		{"HVP", "\x1b[3;4f", 3, 2},
		{"CUU", "\x1b[5;5H\x1b[2A", 4, 2},
		{"CUU clamps", "\x1b[5;5H\x1b[20A", 4, 0},
		{"CUU zero is one", "\x1b[5;5H\x1b[0A", 4, 3},
		{"CUD", "\x1b[5;5H\x1b[3B", 4, 7},
		{"CUD clamps", "\x1b[5;5H\x1b[30B", 4, 9},
		{"CUF", "\x1b[5;5H\x1b[3C", 7, 4},
		{"CUF clamps", "\x1b[5;5H\x1b[300C", 19, 4},
		{"CUB", "\x1b[5;5H\x1b[3D", 1, 4},
		{"CUB clamps", "\x1b[5;5H\x1b[30D", 0, 4},
		{"CNL", "\x1b[5;5H\x1b[2E", 0, 6},
		{"CPL", "\x1b[5;5H\x1b[2F", 0, 2},
		{"CHA", "\x1b[5;5H\x1b[12G", 11, 4},
		{"HPA", "\x1b[5;5H\x1b[12`", 11, 4},
		{"HPR", "\x1b[5;5H\x1b[2a", 6, 4},
		{"VPA", "\x1b[5;5H\x1b[8d", 4, 7},
		{"VPA clamps", "\x1b[5;5H\x1b[80d", 4, 9},
		{"VPR", "\x1b[5;5H\x1b[2e", 4, 6},
		{"BS", "abc\b", 2, 0},
		{"BS at column 0", "\b\b", 0, 0},
		{"CR", "abc\r", 0, 0},
		{"LF keeps the column", "abc\n", 3, 1},
		{"VT and FF are line feeds", "ab\v\f", 2, 2},
		{"LF with LNM returns", "\x1b[20habc\n", 0, 1},
		{"IND", "ab\x1bD", 2, 1},
		{"NEL", "ab\x1bE", 0, 1},
		{"RI", "\x1b[3;3H\x1bM", 2, 1},
		{"CUU stops at the top margin", "\x1b[3;8r\x1b[5;1H\x1b[9A", 0, 2},
		{"CUD stops at the bottom margin", "\x1b[3;8r\x1b[5;1H\x1b[9B", 0, 7},
		{"CUU above the region goes to the top", "\x1b[3;8r\x1b[2;1H\x1b[9A", 0, 0},
		{"CUD below the region goes to the bottom", "\x1b[3;8r\x1b[9;1H\x1b[9B", 0, 9},
		{"origin mode CUP is region-relative", "\x1b[3;8r\x1b[?6h\x1b[2;2H", 1, 3},
		{"origin mode clamps to the region", "\x1b[3;8r\x1b[?6h\x1b[20;1H", 0, 7},
		{"origin mode VPA", "\x1b[3;8r\x1b[?6h\x1b[1d", 0, 2},
		{"origin off homes to the screen", "\x1b[3;8r\x1b[?6h\x1b[?6l", 0, 0},
		{"DECSTBM homes the cursor", "\x1b[5;5H\x1b[2;6r", 0, 0},
		{"CSI s / CSI u", "\x1b[4;6H\x1b[s\x1b[H\x1b[u", 5, 3},
		{"DECSC / DECRC", "\x1b[4;6H\x1b7\x1b[H\x1b8", 5, 3},
		{"DECRC without DECSC homes", "\x1b[4;6H\x1b8", 0, 0},
		{"unknown CSI is ignored", "\x1b[4;6H\x1b[?99;3y\x1b[>5Q", 5, 3},
		{"C0 inside a sequence runs", "\x1b[4\r;6H", 5, 3},
		{"CAN aborts a sequence", "\x1b[4;6H\x1b[2\x18A", 6, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 20, 10, tt.input)
			wantCursor(t, term, tt.x, tt.y)
			checkInvariants(t, term)
		})
	}
}

func TestTabs(t *testing.T) {
	tests := []struct {
		name  string
		input string
		x     int
	}{
		{"HT", "\t", 8},
		{"HT twice", "\t\t", 16},
		{"HT from inside a stop", "abc\t", 8},
		{"HT stops at the last column", "\t\t\t\t\t", 29},
		{"CHT", "\x1b[3I", 24},
		{"CBT", "\x1b[20G\x1b[2Z", 8},
		{"CBT to column 0", "\x1b[5G\x1b[9Z", 0},
		{"HTS", "\x1b[5G\x1bH\r\t", 4},
		{"TBC 0", "\x1b[9G\x1b[g\r\t", 16},
		{"TBC 3", "\x1b[3g\t", 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 30, 3, tt.input)
			wantCursor(t, term, tt.x, 0)
		})
	}
}
