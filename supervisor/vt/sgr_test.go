package vt

import "testing"

func TestSGR(t *testing.T) {
	tests := []struct {
		name   string
		sgr    string
		fg, bg Color
		attr   Attr
	}{
		{"reset", "\x1b[1;31;42m\x1b[0m", DefaultColor, DefaultColor, 0},
		{"empty is reset", "\x1b[1;31m\x1b[m", DefaultColor, DefaultColor, 0},
		{"bold", "\x1b[1m", DefaultColor, DefaultColor, Bold},
		{"dim", "\x1b[2m", DefaultColor, DefaultColor, Dim},
		{"italic", "\x1b[3m", DefaultColor, DefaultColor, Italic},
		{"underline", "\x1b[4m", DefaultColor, DefaultColor, Underline},
		{"curly underline", "\x1b[4:3m", DefaultColor, DefaultColor, Underline},
		{"4:0 is no underline", "\x1b[4m\x1b[4:0m", DefaultColor, DefaultColor, 0},
		{"double underline", "\x1b[21m", DefaultColor, DefaultColor, Underline},
		{"blink", "\x1b[5m", DefaultColor, DefaultColor, Blink},
		{"reverse", "\x1b[7m", DefaultColor, DefaultColor, Reverse},
		{"hidden", "\x1b[8m", DefaultColor, DefaultColor, Hidden},
		{"strike", "\x1b[9m", DefaultColor, DefaultColor, Strike},
		{"all", "\x1b[1;2;3;4;5;7;8;9m", DefaultColor, DefaultColor, Bold | Dim | Italic | Underline | Blink | Reverse | Hidden | Strike},
		{"22 clears bold and dim", "\x1b[1;2;3m\x1b[22m", DefaultColor, DefaultColor, Italic},
		{"23", "\x1b[3;4m\x1b[23m", DefaultColor, DefaultColor, Underline},
		{"24", "\x1b[3;4m\x1b[24m", DefaultColor, DefaultColor, Italic},
		{"25", "\x1b[5;4m\x1b[25m", DefaultColor, DefaultColor, Underline},
		{"27", "\x1b[7;4m\x1b[27m", DefaultColor, DefaultColor, Underline},
		{"28", "\x1b[8;4m\x1b[28m", DefaultColor, DefaultColor, Underline},
		{"29", "\x1b[9;4m\x1b[29m", DefaultColor, DefaultColor, Underline},
		{"fg 30-37", "\x1b[31m", IndexedColor(1), DefaultColor, 0},
		{"bg 40-47", "\x1b[47m", DefaultColor, IndexedColor(7), 0},
		{"bright fg", "\x1b[92m", IndexedColor(10), DefaultColor, 0},
		{"bright bg", "\x1b[107m", DefaultColor, IndexedColor(15), 0},
		{"default fg", "\x1b[31;42m\x1b[39m", DefaultColor, IndexedColor(2), 0},
		{"default bg", "\x1b[31;42m\x1b[49m", IndexedColor(1), DefaultColor, 0},
		{"256 fg", "\x1b[38;5;208m", IndexedColor(208), DefaultColor, 0},
		{"256 bg", "\x1b[48;5;17m", DefaultColor, IndexedColor(17), 0},
		{"256 then attribute", "\x1b[38;5;1;1m", IndexedColor(1), DefaultColor, Bold},
		{"truecolor fg", "\x1b[38;2;10;20;30m", RGBColor(10, 20, 30), DefaultColor, 0},
		{"truecolor bg", "\x1b[48;2;1;2;3m", DefaultColor, RGBColor(1, 2, 3), 0},
		{"truecolor then attribute", "\x1b[38;2;10;20;30;4m", RGBColor(10, 20, 30), DefaultColor, Underline},
		{"truecolor clamps", "\x1b[38;2;300;20;30m", RGBColor(255, 20, 30), DefaultColor, 0},
		{"colon 256", "\x1b[38:5:99m", IndexedColor(99), DefaultColor, 0},
		{"colon truecolor", "\x1b[38:2:10:20:30m", RGBColor(10, 20, 30), DefaultColor, 0},
		{"colon truecolor with colour space", "\x1b[38:2::10:20:30m", RGBColor(10, 20, 30), DefaultColor, 0},
		{"colon truecolor with colour space id", "\x1b[48:2:0:10:20:30;1m", DefaultColor, RGBColor(10, 20, 30), Bold},
		{"colon then attribute", "\x1b[38:5:3;1m", IndexedColor(3), DefaultColor, Bold},
		{"underline colour is skipped", "\x1b[58:2::1:2:3;1m", DefaultColor, DefaultColor, Bold},
		{"underline colour, semicolons", "\x1b[58;5;9;3m", DefaultColor, DefaultColor, Italic},
		{"truncated 38 is ignored", "\x1b[38;5m", DefaultColor, DefaultColor, 0},
		{"truncated truecolor is ignored", "\x1b[38;2;1m", DefaultColor, DefaultColor, 0},
		{"unknown codes are ignored", "\x1b[1;66;31m", IndexedColor(1), DefaultColor, Bold},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 10, 2, tt.sgr+"x")
			c := cell(term, 0, 0)
			if c.Rune != 'x' || c.Fg != tt.fg || c.Bg != tt.bg || c.Attr != tt.attr {
				t.Errorf("cell = %+v; want fg %#x bg %#x attr %08b", c, tt.fg, tt.bg, tt.attr)
			}
		})
	}
}

func TestColor(t *testing.T) {
	if !DefaultColor.IsDefault() || IndexedColor(0).IsDefault() || RGBColor(0, 0, 0).IsDefault() {
		t.Error("IsDefault")
	}
	if i, ok := IndexedColor(200).Index(); !ok || i != 200 {
		t.Errorf("Index = %d, %v", i, ok)
	}
	if _, ok := RGBColor(1, 2, 3).Index(); ok {
		t.Error("an RGB colour has an index")
	}
	if r, g, b, ok := RGBColor(1, 2, 3).RGB(); !ok || r != 1 || g != 2 || b != 3 {
		t.Errorf("RGB = %d %d %d %v", r, g, b, ok)
	}
	if _, _, _, ok := IndexedColor(1).RGB(); ok {
		t.Error("an indexed colour has RGB")
	}
	for _, tt := range []struct {
		i       uint8
		r, g, b uint8
	}{
		{0, 0, 0, 0}, {1, 0xcd, 0, 0}, {15, 0xff, 0xff, 0xff},
		{16, 0, 0, 0}, {21, 0, 0, 0xff}, {196, 0xff, 0, 0}, {231, 0xff, 0xff, 0xff},
		{232, 8, 8, 8}, {255, 0xee, 0xee, 0xee},
	} {
		if r, g, b := Palette(tt.i); r != tt.r || g != tt.g || b != tt.b {
			t.Errorf("Palette(%d) = %d %d %d; want %d %d %d", tt.i, r, g, b, tt.r, tt.g, tt.b)
		}
	}
}
