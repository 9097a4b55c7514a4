package vt

// Cell is one character cell of the screen. It is a small value type with no
// pointers, so a screen or a scrollback of thousands of lines is one plain
// block of memory the garbage collector never has to scan, and copying a row
// is a memmove.
type Cell struct {
	// Rune is the character; 0 is an empty cell, drawn as a space.
	Rune rune
	// Fg and Bg are the colours the cell was written with.
	Fg, Bg Color
	// Comb names the combining marks (accents, variation selectors) drawn
	// on top of Rune; 0 means none. Marks are rare, so instead of a string
	// in every cell a cell holds this small id; Snapshot.Grapheme and
	// Terminal.Combining turn it back into text.
	Comb uint16
	// Width is 1 for a normal cell and 2 for the left half of a wide
	// character; the right half of a wide character is a cell of Width 0
	// with the same colours and no rune, which a painter skips once it has
	// drawn the left half across both columns.
	Width uint8
	// Attr holds the rendition flags (bold, underline, ...).
	Attr Attr
}

// blankCell is an erased cell with default colours.
var blankCell = Cell{Width: 1}

// Attr is a bitset of SGR renditions.
type Attr uint8

// The renditions SGR can switch on.
const (
	Bold Attr = 1 << iota
	Dim
	Italic
	Underline
	Blink
	Reverse
	Hidden
	Strike
)

// Color is a cell colour packed in 32 bits: the default colour (the zero
// value), an index into the 256-colour xterm palette, or a 24-bit RGB value.
// The painter decides what "default" and the 16 base colours look like.
type Color uint32

const (
	colorKindShift       = 24
	colorIndexed   Color = 1 << colorKindShift
	colorRGB       Color = 2 << colorKindShift
	colorKindMask  Color = 0xff << colorKindShift
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// IndexedColor returns palette colour i (0–15 are the ANSI colours, 16–231
// the 6×6×6 cube, 232–255 the grey ramp).
func IndexedColor(i uint8) Color { return colorIndexed | Color(i) }

// RGBColor returns a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c&colorKindMask == 0 }

// Index returns the palette index of an indexed colour.
func (c Color) Index() (uint8, bool) {
	if c&colorKindMask != colorIndexed {
		return 0, false
	}
	return uint8(c), true
}

// RGB returns the components of a 24-bit colour; ok is false for the
// default and indexed colours (resolve those with Palette).
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&colorKindMask != colorRGB {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// Palette returns xterm's RGB value for palette index i, so a painter can
// draw an indexed colour without its own table.
func Palette(i uint8) (r, g, b uint8) {
	// xterm's default 16 colours.
	base := [16][3]uint8{
		{0x00, 0x00, 0x00}, {0xcd, 0x00, 0x00}, {0x00, 0xcd, 0x00}, {0xcd, 0xcd, 0x00},
		{0x00, 0x00, 0xee}, {0xcd, 0x00, 0xcd}, {0x00, 0xcd, 0xcd}, {0xe5, 0xe5, 0xe5},
		{0x7f, 0x7f, 0x7f}, {0xff, 0x00, 0x00}, {0x00, 0xff, 0x00}, {0xff, 0xff, 0x00},
		{0x5c, 0x5c, 0xff}, {0xff, 0x00, 0xff}, {0x00, 0xff, 0xff}, {0xff, 0xff, 0xff},
	}
	switch {
	case i < 16:
		c := base[i]
		return c[0], c[1], c[2]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return level(i / 36), level(i / 6 % 6), level(i % 6)
	default:
		v := 8 + 10*(i-232)
		return v, v, v
	}
}
