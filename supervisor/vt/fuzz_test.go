package vt

import (
	"slices"
	"testing"
)

// FuzzWrite throws arbitrary output at a small terminal, split at an
// arbitrary point, with a resize in between, and checks that nothing
// panics and the state stays consistent: cursor on the screen, every row
// exactly Cols cells, wide characters in whole pairs.
func FuzzWrite(f *testing.F) {
	for _, seed := range []string{
		"hello\r\nworld",
		"日本語 wide at the edge 日本語日本語",
		"\x1b[2;5r\x1b[?6h\x1b[10;10H\x1b[5L\x1b[3M\x1bM\x1bD\x1b[9S\x1b[9T",
		"\x1b[38:2::1:2:3m\x1b[48;5;9m\x1b[4:3m\x1b[58;2;1;2;3m",
		"\x1b[?1049h\x1b[2J\x1b[H\x1b[?1049l\x1b[?47h\x1b[?1047l",
		"\x1b]2;title\x07\x1bPdcs\x1b\\\x1b_apc\x1b\\",
		"\x1b[4hab日\x1b[4l\x1b[3@\x1b[5P\x1b[9X\x1b[b\x1b[65535b",
		"e\u0301\u0302\u0303\ufe0f\u200d",
		"\xff\xfe\xe6\x97\xf0\x9f",
		"\x1b(0lqk\x0e\x1b)0x\x0f\x1b#8\x1bc",
		"\x1b[?7lxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx日本",
		"\x1b[99;99H\x1b[6n\x1b[s\x1b[u\x1b7\x1b8\x1b[!p",
	} {
		f.Add([]byte(seed), uint8(3), uint8(20), uint8(6))
	}
	f.Fuzz(func(t *testing.T, data []byte, split, cols, rows uint8) {
		term := New(20, 6, WithScrollback(30), WithReply(func([]byte) {}))
		// plain encodes scrolled lines from their cells, never from row
		// logs; its scrollback must come out the same.
		plain := New(20, 6, WithScrollback(30))
		plain.main.logs = nil
		cut := 0
		if len(data) > 0 {
			cut = int(split) % (len(data) + 1)
		}
		term.Write(data[:cut])
		plain.Write(data[:cut])
		checkInvariants(t, term)
		term.Resize(int(cols%40), int(rows%12))
		plain.Resize(int(cols%40), int(rows%12))
		checkInvariants(t, term)
		term.Write(data[cut:])
		plain.Write(data[cut:])
		checkInvariants(t, term)
		if term.ScrollbackLen() != plain.ScrollbackLen() {
			t.Fatalf("ScrollbackLen %d, without row logs %d", term.ScrollbackLen(), plain.ScrollbackLen())
		}
		for i := range term.ScrollbackLen() {
			if a, b := term.ScrollbackLine(i), plain.ScrollbackLine(i); !slices.Equal(a, b) {
				t.Fatalf("scrollback line %d:\n with row logs %+v\n without       %+v", i, a, b)
			}
		}
		s := term.Snapshot()
		if s.Cursor.X < 0 || s.Cursor.X >= s.Cols || s.Cursor.Y < 0 || s.Cursor.Y >= s.Rows {
			t.Fatalf("snapshot cursor %+v outside %dx%d", s.Cursor, s.Cols, s.Rows)
		}
		_ = term.Text()
	})
}
