package vt

import (
	"strconv"
	"unicode/utf8"
)

// stateWriter builds the byte stream of Terminal.AppendState. It tracks
// the pen of the terminal that will read the stream, so that it sends a
// colour change only when the next cell needs one.
type stateWriter struct {
	b []byte
	// pen is the reading terminal's pen as the stream leaves it; only its
	// colours and attributes matter.
	pen   Cell
	combs []string
	cols  int
	// printed says the stream prints a character somewhere, which sets
	// the reader's REP character.
	printed bool
	// loss says what the stream could only approximate.
	loss stateLoss
}

// csi appends CSI, the parameters separated by ';', and final: the final
// byte, after any intermediate bytes (" q" for DECSCUSR).
func (w *stateWriter) csi(final string, params ...int) {
	w.b = append(w.b, "\x1b["...)
	for i, p := range params {
		if i > 0 {
			w.b = append(w.b, ';')
		}
		w.b = strconv.AppendInt(w.b, int64(p), 10)
	}
	w.b = append(w.b, final...)
}

// privateMode appends DECSET or DECRST of mode.
func (w *stateWriter) privateMode(mode int, on bool) {
	w.b = append(w.b, "\x1b[?"...)
	w.b = strconv.AppendInt(w.b, int64(mode), 10)
	if on {
		w.b = append(w.b, 'h')
	} else {
		w.b = append(w.b, 'l')
	}
}

// cup moves the reader's cursor to column x, row y (0-based, relative to
// the scroll region in origin mode).
func (w *stateWriter) cup(x, y int) {
	switch {
	case x == 0 && y == 0:
		w.b = append(w.b, "\x1b[H"...)
	case x == 0:
		w.csi("H", y+1)
	default:
		w.csi("H", y+1, x+1)
	}
}

// sgr changes the reader's pen to want's colours and attributes. Adding
// attributes and changing colours is said as such; taking an attribute
// away starts again from SGR 0, since 22 clears bold and dim together.
func (w *stateWriter) sgr(want Cell) {
	cur := w.pen
	if want.Fg == cur.Fg && want.Bg == cur.Bg && want.Attr == cur.Attr {
		return
	}
	w.pen.Fg, w.pen.Bg, w.pen.Attr = want.Fg, want.Bg, want.Attr
	if want.Fg|want.Bg == 0 && want.Attr == 0 {
		w.b = append(w.b, "\x1b[m"...)
		return
	}
	w.b = append(w.b, "\x1b["...)
	sep := false
	add := want.Attr &^ cur.Attr
	if cur.Attr&^want.Attr != 0 {
		w.b = append(w.b, '0')
		sep = true
		add = want.Attr
		cur.Fg, cur.Bg = DefaultColor, DefaultColor
	}
	for i, code := range [8]byte{'1', '2', '3', '4', '5', '7', '8', '9'} {
		if add&(1<<i) != 0 {
			if sep {
				w.b = append(w.b, ';')
			}
			w.b = append(w.b, code)
			sep = true
		}
	}
	if want.Fg != cur.Fg {
		if sep {
			w.b = append(w.b, ';')
		}
		w.b = appendColor(w.b, want.Fg, 30)
		sep = true
	}
	if want.Bg != cur.Bg {
		if sep {
			w.b = append(w.b, ';')
		}
		w.b = appendColor(w.b, want.Bg, 40)
	}
	w.b = append(w.b, 'm')
}

// appendColor appends the SGR parameters selecting c, base being 30 for
// the foreground and 40 for the background.
func appendColor(b []byte, c Color, base int) []byte {
	if r, g, bl, ok := c.RGB(); ok {
		b = strconv.AppendInt(b, int64(base+8), 10)
		b = append(b, ";2;"...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	i, ok := c.Index()
	switch {
	case !ok:
		return strconv.AppendInt(b, int64(base+9), 10)
	case i < 8:
		return strconv.AppendInt(b, int64(base+int(i)), 10)
	case i < 16:
		return strconv.AppendInt(b, int64(base+60+int(i)-8), 10)
	}
	b = strconv.AppendInt(b, int64(base+8), 10)
	b = append(b, ";5;"...)
	return strconv.AppendInt(b, int64(i), 10)
}

// cell prints c (a character cell, not an empty one or a right half) at
// the reader's cursor: its pen, its character, its combining marks.
func (w *stateWriter) cell(c Cell) {
	w.sgr(c)
	w.b = utf8.AppendRune(w.b, c.Rune)
	if c.Comb != 0 && int(c.Comb) < len(w.combs) {
		w.b = append(w.b, w.combs[c.Comb]...)
	}
	w.printed = true
}

// row draws cells from column 0 of a blank row, the reader's cursor being
// there. Empty cells are skipped over with the cursor, or erased in their
// background colour, so that they stay empty rather than become spaces.
// The row is not finished with a line feed: a character in the last
// column leaves the reader's cursor waiting to wrap, and what comes next
// (CR LF, a CUP) cancels that.
func (w *stateWriter) row(cells []Cell) {
	end := len(cells)
	for end > 0 && cells[end-1] == blankCell {
		end--
	}
	at := 0 // the reader's cursor column
	for x := 0; x < end; {
		c := &cells[x]
		switch {
		case c.Width == 0:
			// The right half of a wide character, drawn with its left.
			x++
		case c.Rune == 0:
			j := x + 1
			for j < end && cells[j].Rune == 0 && cells[j].Width == 1 && cells[j].Bg == c.Bg {
				j++
			}
			if c.Bg != DefaultColor {
				// Erasing (ECH) leaves empty cells in the pen's
				// background, which is what these are.
				w.forward(&at, x)
				w.sgr(Cell{Fg: w.pen.Fg, Bg: c.Bg, Attr: w.pen.Attr})
				w.csi("X", j-x)
			}
			x = j
		default:
			w.forward(&at, x)
			if n := w.asciiRun(cells[x:end]); n > 0 {
				x += n
			} else {
				w.char(*c)
				x += int(c.Width)
			}
			at = x
		}
	}
}

// scrollbackRow is row for a scrollback line as the ring stores it (see
// encodeLine), translated straight from its encoding: decoding 10,000
// lines into cells first took half the time of the whole state. A line
// wider than the screen is cut at its width, as resizeLine cuts one.
func (w *stateWriter) scrollbackRow(src []byte) {
	var style Cell
	x, at := 0, 0 // the line's next column, the reader's cursor column
	force := 0    // a tagNarrow or tagWide's width for the next character
	// comb is the combining marks of the character just printed, sent
	// once its cell is done: a row log records each mark added as the
	// whole set so far, and only the last set counts. -1 is no character.
	comb := -1
	defer func() { w.marks(comb) }()
	for i := 0; i < len(src); {
		b := src[i]
		if x >= w.cols && (b >= 0x20 || b == tagEmpty) {
			w.loss |= lossScrollbackWidth
			return
		}
		if b >= 0x20 || b == tagEmpty {
			w.marks(comb)
			comb = -1
		}
		switch {
		case b >= 0x20 && b < 0x80:
			j := i + 1
			for j < len(src) && j-i < w.cols-x && src[j] >= 0x20 && src[j] < 0x80 {
				j++
			}
			w.forward(&at, x)
			w.sgr(style)
			w.b = append(w.b, src[i:j]...)
			w.printed, comb = true, 0
			x += j - i
			at, i = x, j
		case b == tagEmpty:
			j := i + 1
			for j < len(src) && j-i < w.cols-x && src[j] == tagEmpty {
				j++
			}
			if style.Bg != DefaultColor {
				w.forward(&at, x)
				w.sgr(Cell{Fg: w.pen.Fg, Bg: style.Bg, Attr: w.pen.Attr})
				w.csi("X", j-i)
			}
			x += j - i
			i = j
		case b == tagStyle:
			if len(src)-i < 10 {
				return
			}
			style.Fg, style.Bg, style.Attr = decodeStyle(src[i+1 : i+10])
			i += 10
		case b == tagComb:
			if len(src)-i < 3 {
				return
			}
			if comb >= 0 {
				comb = int(src[i+1]) | int(src[i+2])<<8
			}
			i += 3
		case b == tagNarrow, b == tagWide:
			force = 1 + int(b-tagNarrow)
			i++
		case b < 0x20:
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			c := Cell{Rune: r, Fg: style.Fg, Bg: style.Bg, Attr: style.Attr, Width: uint8(max(runeWidth(r), 1))}
			if force != 0 {
				c.Width, force = uint8(force), 0
			}
			if x+int(c.Width) > w.cols {
				w.loss |= lossScrollbackWidth
				return
			}
			w.forward(&at, x)
			w.char(c)
			comb = 0
			x += int(c.Width)
			at, i = x, i+size
		}
	}
}

// marks appends combining marks id, if there is such an id.
func (w *stateWriter) marks(id int) {
	if id > 0 && id < len(w.combs) {
		w.b = append(w.b, w.combs[id]...)
	}
}

// char prints the character cell c, or a stand-in for one printing would
// not make again.
func (w *stateWriter) char(c Cell) {
	if !reprints(c, w.cols) {
		// A wide character squeezed into one column while the screen
		// was one column wide: printed now it would take two, so a
		// narrow stand-in keeps the row's layout.
		c.Rune = utf8.RuneError
		w.loss |= lossForcedNarrow
	}
	w.cell(c)
}

// forward moves the reader's cursor from column *at right to column x.
func (w *stateWriter) forward(at *int, x int) {
	switch n := x - *at; {
	case n == 1:
		w.b = append(w.b, "\x1b[C"...)
	case n > 1:
		w.csi("C", n)
	}
	*at = x
}

// asciiRun prints the cells at the start of cells that are printable
// ASCII in one style without marks, which is most of any line, and
// returns how many it printed.
func (w *stateWriter) asciiRun(cells []Cell) int {
	first := cells[0]
	n := 0
	for n < len(cells) {
		c := &cells[n]
		if c.Width != 1 || c.Comb != 0 || uint32(c.Rune)-0x20 >= 0x5f ||
			c.Fg != first.Fg || c.Bg != first.Bg || c.Attr != first.Attr {
			break
		}
		n++
	}
	if n == 0 {
		return 0
	}
	w.sgr(first)
	for _, c := range cells[:n] {
		w.b = append(w.b, byte(c.Rune))
	}
	w.printed = true
	return n
}

// charsets designates G0 and G1 and selects GL as in s, from the power-on
// state (both ASCII, G0 in GL).
func (w *stateWriter) charsets(cs [2]charset, gl int) {
	if cs[0] == charsetDECGraphics {
		w.b = append(w.b, "\x1b(0"...)
	}
	if cs[1] == charsetDECGraphics {
		w.b = append(w.b, "\x1b)0"...)
	}
	if gl == 1 {
		w.b = append(w.b, 0x0e)
	}
}

// resetCharsets undoes charsets.
func (w *stateWriter) resetCharsets(cs [2]charset, gl int) {
	if cs[0] != charsetASCII {
		w.b = append(w.b, "\x1b(B"...)
	}
	if cs[1] != charsetASCII {
		w.b = append(w.b, "\x1b)B"...)
	}
	if gl != 0 {
		w.b = append(w.b, 0x0f)
	}
}

// parser appends what brings a fresh parser to the state of p: the start
// of a sequence, or of a UTF-8 character, that the last Write cut off. It
// must be the last thing in the stream.
func (w *stateWriter) parser(p *parser) {
	switch p.state {
	case stGround:
		w.b = append(w.b, p.pending[:p.npending]...)
	case stEscape, stEscInter:
		w.b = append(w.b, 0x1b)
		w.intermediates(p)
	case stCSI, stCSIInter:
		w.b = append(w.b, "\x1b["...)
		if p.marker != 0 {
			w.b = append(w.b, p.marker)
		}
		n := min(p.n, maxParams-1)
		for i := 0; i <= n; i++ {
			if i > 0 {
				if p.isSub(i) {
					w.b = append(w.b, ':')
				} else {
					w.b = append(w.b, ';')
				}
			}
			if v := p.params[i]; v != 0 || p.digits && p.n == 0 {
				w.b = strconv.AppendInt(w.b, int64(v), 10)
			}
		}
		if p.n >= maxParams {
			// The parameters overflowed: one more separator says so.
			w.b = append(w.b, ';')
		}
		if p.state == stCSIInter {
			w.intermediates(p)
		}
	case stCSIIgnore:
		// A marker after a digit makes any sequence malformed.
		w.b = append(w.b, "\x1b[0?"...)
	case stOSC:
		w.b = append(w.b, "\x1b]"...)
		w.b = append(w.b, p.osc...)
	case stString:
		w.b = append(w.b, "\x1bP"...)
	}
}

// intermediates appends a sequence's intermediate bytes: the first one,
// and a second when there were more, which is all the parser keeps.
func (w *stateWriter) intermediates(p *parser) {
	for range min(p.ninter, 2) {
		w.b = append(w.b, p.inter)
	}
}
