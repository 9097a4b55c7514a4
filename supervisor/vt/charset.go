package vt

// charset is a character set designated into G0 or G1.
type charset uint8

const (
	charsetASCII charset = iota
	// charsetDECGraphics is DEC Special Graphics (ESC ( 0), which curses
	// programs use for line drawing.
	charsetDECGraphics
)

// decGraphics maps 0x5f–0x7e in the DEC Special Graphics set to the Unicode
// characters that look like them.
var decGraphics = [32]rune{
	0x0020, // _ blank
	0x25c6, // ` diamond
	0x2592, // a checkerboard
	0x2409, // b HT
	0x240c, // c FF
	0x240d, // d CR
	0x240a, // e LF
	0x00b0, // f degree
	0x00b1, // g plus/minus
	0x2424, // h NL
	0x240b, // i VT
	0x2518, // j ┘
	0x2510, // k ┐
	0x250c, // l ┌
	0x2514, // m └
	0x253c, // n ┼
	0x23ba, // o scan line 1
	0x23bb, // p scan line 3
	0x2500, // q ─
	0x23bc, // r scan line 7
	0x23bd, // s scan line 9
	0x251c, // t ├
	0x2524, // u ┤
	0x2534, // v ┴
	0x252c, // w ┬
	0x2502, // x │
	0x2264, // y ≤
	0x2265, // z ≥
	0x03c0, // { π
	0x2260, // | ≠
	0x00a3, // } £
	0x00b7, // ~ ·
}

// mapCharset translates an ASCII character through cs.
func mapCharset(cs charset, r rune) rune {
	if cs == charsetDECGraphics && r >= 0x5f && r <= 0x7e {
		return decGraphics[r-0x5f]
	}
	return r
}
