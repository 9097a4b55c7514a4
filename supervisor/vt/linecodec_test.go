package vt

import (
	"slices"
	"testing"
)

func TestLineCodecRoundTrip(t *testing.T) {
	red, blue := IndexedColor(1), RGBColor(1, 2, 255)
	wide := func(r rune, fg Color) []Cell {
		return []Cell{{Rune: r, Width: 2, Fg: fg}, {Width: 0, Fg: fg}}
	}
	tests := []struct {
		name  string
		cells []Cell
	}{
		{"empty", nil},
		{"ascii", []Cell{{Rune: 'a', Width: 1}, {Rune: 'b', Width: 1}}},
		{"empty cells", []Cell{{Width: 1}, {Rune: 'x', Width: 1}, {Width: 1, Bg: red}}},
		{"colours", []Cell{{Rune: 'a', Width: 1, Fg: red, Attr: Bold}, {Rune: 'b', Width: 1, Fg: blue, Bg: red, Attr: Underline | Strike}, {Rune: 'c', Width: 1}}},
		{"wide", slices.Concat(wide('日', red), []Cell{{Rune: 'x', Width: 1}}, wide('😀', 0))},
		{"combining", []Cell{{Rune: 'e', Width: 1, Comb: 7}, {Rune: '日', Width: 2, Comb: 300}, {Width: 0}}},
		{"non-ASCII narrow", []Cell{{Rune: '─', Width: 1}, {Rune: 'é', Width: 1}, {Rune: '\uFFFD', Width: 1}}},
		{"wide forced narrow", []Cell{{Rune: '日', Width: 1}}},
		{"all attributes", []Cell{{Rune: 'z', Width: 1, Attr: 0xff, Fg: IndexedColor(255), Bg: RGBColor(255, 255, 255)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := encodeLine(nil, tt.cells)
			got := decodeLine(nil, enc)
			if !slices.Equal(got, tt.cells) {
				t.Errorf("decoded %+v\nwant    %+v", got, tt.cells)
			}
		})
	}
}

func TestLineCodecIsCompact(t *testing.T) {
	term := newTerm(t, 200, 2, string(BenchStream(4096)))
	total := 0
	for i := range term.ScrollbackLen() {
		total += len(term.sb.at(i))
	}
	if per := total / term.ScrollbackLen(); per > 300 {
		t.Errorf("%d bytes per scrollback line of a build log", per)
	}
}

// FuzzDecodeLine checks that decoding arbitrary bytes never panics and
// yields consistent wide-character pairs.
func FuzzDecodeLine(f *testing.F) {
	f.Add(encodeLine(nil, []Cell{{Rune: '日', Width: 2, Fg: 1, Comb: 3}, {Width: 0, Fg: 1}, {Rune: 'a', Width: 1}}))
	f.Add([]byte{tagStyle, 1, 2})
	f.Add([]byte{tagComb, tagWide, 'a', tagNarrow, 0xe6, 0x97, 0xa5, 0xff})
	f.Fuzz(func(t *testing.T, src []byte) {
		cells := decodeLine(nil, src)
		if err := checkLine(append(cells, blankCell)); err != nil {
			t.Fatal(err)
		}
	})
}
