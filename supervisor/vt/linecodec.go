package vt

import (
	"slices"
	"unicode/utf8"
)

// Scrollback lines are stored encoded, not as []Cell. A Cell is 16 bytes;
// a line of a build log is 100-odd characters in a handful of colours, so
// as cells it takes ~2 KB and as text plus colour changes ~150 bytes. At
// 10,000 lines that is the difference between 20 MB and 1.5 MB per agent,
// and between writing every scrolled line to cold memory and staying in
// cache, which is what made scrolling slow.
//
// The encoding is UTF-8 text where bytes below 0x20, which a cell never
// holds, are tags:
//
//	0x00              an empty cell (Rune 0)
//	0x01 fg bg attr   the cells from here on have these colours (4 bytes
//	                  each, little-endian) and attributes (1 byte); a line
//	                  starts with the default colours and no attributes
//	0x02 id           the previous character's combining marks (2 bytes)
//	0x03 / 0x04       the next character is narrow / wide even though its
//	                  width says otherwise (a wide character on a
//	                  one-column screen)
//
// The right half of a wide character is not stored: decoding a wide
// character makes both cells.
const (
	tagEmpty  = 0x00
	tagStyle  = 0x01
	tagComb   = 0x02
	tagNarrow = 0x03
	tagWide   = 0x04
)

// encodeLine appends the encoding of cells to dst.
func encodeLine(dst []byte, cells []Cell) []byte {
	var fg, bg Color
	var attr Attr
	for i := 0; i < len(cells); i++ {
		// The common case first: a run of ASCII characters in one style,
		// checked and copied in one pass with no append bookkeeping.
		if n := appendASCIIRun(&dst, cells[i:], fg, bg, attr); n > 0 {
			i += n - 1
			continue
		}
		c := &cells[i]
		if c.Width == 0 {
			continue
		}
		if c.Fg != fg || c.Bg != bg || c.Attr != attr {
			fg, bg, attr = c.Fg, c.Bg, c.Attr
			dst = append(dst, tagStyle,
				byte(fg), byte(fg>>8), byte(fg>>16), byte(fg>>24),
				byte(bg), byte(bg>>8), byte(bg>>16), byte(bg>>24),
				byte(attr))
		}
		r := c.Rune
		switch {
		case r >= 0x20 && r < 0x80 && c.Width == 1:
			dst = append(dst, byte(r))
		case r < 0x20:
			// Only 0 occurs; anything else would read as a tag.
			dst = append(dst, tagEmpty)
		default:
			if w := runeWidth(r); int(c.Width) != w {
				if c.Width == 2 {
					dst = append(dst, tagWide)
				} else {
					dst = append(dst, tagNarrow)
				}
			}
			dst = utf8.AppendRune(dst, r)
		}
		if c.Comb != 0 {
			dst = append(dst, tagComb, byte(c.Comb), byte(c.Comb>>8))
		}
	}
	return dst
}

// appendASCIIRun appends to *dst the cells at the start of cells that hold
// a printable ASCII character, drawn narrow in the given style with no
// marks, one byte each, and returns how many there were.
func appendASCIIRun(dst *[]byte, cells []Cell, fg, bg Color, attr Attr) int {
	out := slices.Grow(*dst, len(cells))
	buf := out[len(out):cap(out)]
	n := 0
	for k := range cells {
		c := &cells[k]
		if c.Fg != fg || c.Bg != bg || c.Attr != attr || c.Comb != 0 || c.Width != 1 || uint32(c.Rune)-0x20 >= 0x60 || k >= len(buf) {
			break
		}
		buf[k] = byte(c.Rune)
		n++
	}
	*dst = out[:len(out)+n]
	return n
}

// decodeLine appends the cells src encodes to dst. It never panics, even on
// bytes encodeLine did not make.
func decodeLine(dst []Cell, src []byte) []Cell {
	cur := blankCell
	force := uint8(0)
	for i := 0; i < len(src); {
		b := src[i]
		switch {
		case b >= 0x20 && b < 0x80:
			cur.Rune, cur.Width = rune(b), 1
			dst = append(dst, cur)
			i++
		case b == tagEmpty:
			cur.Rune, cur.Width = 0, 1
			dst = append(dst, cur)
			i++
		case b == tagStyle:
			if len(src)-i < 10 {
				return dst
			}
			cur.Fg, cur.Bg, cur.Attr = decodeStyle(src[i+1 : i+10])
			i += 10
		case b == tagComb:
			if len(src)-i < 3 {
				return dst
			}
			last := len(dst) - 1
			if last >= 0 && dst[last].Width == 0 {
				last--
			}
			if last >= 0 {
				dst[last].Comb = uint16(src[i+1]) | uint16(src[i+2])<<8
			}
			i += 3
		case b == tagNarrow:
			force = 1
			i++
		case b == tagWide:
			force = 2
			i++
		case b < 0x20:
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			w := uint8(runeWidth(r))
			if force != 0 {
				w, force = force, 0
			}
			cur.Rune, cur.Width = r, max(w, 1)
			dst = append(dst, cur)
			if w == 2 {
				half := cur
				half.Rune, half.Width = 0, 0
				dst = append(dst, half)
			}
			i += size
		}
	}
	return dst
}

// decodeStyle reads the colours and attributes of a style record, s being
// the 9 bytes after its tag.
func decodeStyle(s []byte) (fg, bg Color, attr Attr) {
	fg = Color(s[0]) | Color(s[1])<<8 | Color(s[2])<<16 | Color(s[3])<<24
	bg = Color(s[4]) | Color(s[5])<<8 | Color(s[6])<<16 | Color(s[7])<<24
	return fg, bg, Attr(s[8])
}
