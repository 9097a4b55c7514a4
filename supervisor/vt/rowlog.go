package vt

import "unicode/utf8"

// rowLog is a row's scrollback encoding (see encodeLine), kept up to date
// while the row is only ever appended to.
//
// Encoding a row when it scrolls off means looking at every cell again,
// and that was half the cost of printing a build log. But such a row is
// nearly always written once, left to right: runs of text in one colour,
// a few wide characters, maybe an erase to the end of the line. While that
// holds, printing appends to the log as it goes — for ASCII a copy of the
// bytes it just printed — and scrolling off costs one short copy. Anything
// else that touches the row (overwriting, inserting, erasing within it)
// drops the log, and the row is encoded from its cells as before.
type rowLog struct {
	b []byte
	// n is how many cells the log covers; every cell from n on is blank.
	n int32
	// last is the column of the last character logged, which a combining
	// mark attaches to, or -1.
	last int32
	// spaces counts the trailing bytes of b that are spaces in the default
	// style, which the cell encoding trims.
	spaces int32
	fg, bg Color
	attr   Attr
	// ok says the log matches the row.
	ok bool
}

// reset makes the log that of a blank row.
func (l *rowLog) reset() {
	*l = rowLog{b: l.b[:0], last: -1, ok: true}
}

// style appends a style record if the pen differs from the log's style.
func (l *rowLog) style(pen *Cell) {
	if pen.Fg != l.fg || pen.Bg != l.bg || pen.Attr != l.attr {
		l.fg, l.bg, l.attr = pen.Fg, pen.Bg, pen.Attr
		fg, bg := pen.Fg, pen.Bg
		l.b = append(l.b, tagStyle,
			byte(fg), byte(fg>>8), byte(fg>>16), byte(fg>>24),
			byte(bg), byte(bg>>8), byte(bg>>16), byte(bg>>24),
			byte(pen.Attr))
	}
}

// ascii logs run printed at column x with pen, or drops the log if that is
// not an append.
func (l *rowLog) ascii(x int, run []byte, pen *Cell) {
	if !l.ok {
		return
	}
	if int32(x) != l.n {
		l.ok = false
		return
	}
	l.style(pen)
	l.b = append(l.b, run...)
	l.n += int32(len(run))
	l.last = l.n - 1
	if pen.Fg|pen.Bg != 0 || pen.Attr != 0 {
		l.spaces = 0
		return
	}
	k := len(run)
	for k > 0 && run[k-1] == ' ' {
		k--
	}
	if k == 0 {
		l.spaces += int32(len(run))
	} else {
		l.spaces = int32(len(run) - k)
	}
}

// char logs a character of width w printed at column x, or drops the log.
func (l *rowLog) char(x int, r rune, w int, pen *Cell) {
	if !l.ok {
		return
	}
	if int32(x) != l.n {
		l.ok = false
		return
	}
	l.style(pen)
	if r < 0x80 && w == 1 {
		l.b = append(l.b, byte(r))
		if r == ' ' && pen.Fg|pen.Bg == 0 && pen.Attr == 0 {
			l.spaces++
		} else {
			l.spaces = 0
		}
	} else {
		if w != runeWidth(r) {
			if w == 2 {
				l.b = append(l.b, tagWide)
			} else {
				l.b = append(l.b, tagNarrow)
			}
		}
		l.b = utf8.AppendRune(l.b, r)
		l.spaces = 0
	}
	l.n = int32(x + w)
	l.last = int32(x)
}

// mark logs combining marks id now on the character at column x.
func (l *rowLog) mark(x int, id uint16) {
	if !l.ok {
		return
	}
	if int32(x) != l.last {
		l.ok = false
		return
	}
	l.b = append(l.b, tagComb, byte(id), byte(id>>8))
	l.spaces = 0
}

// erased notes that columns from on were blanked with e.
func (l *rowLog) erased(from int, e Cell) {
	if e != blankCell || int32(from) < l.n {
		l.ok = false
	}
}

// encoded returns the log as the ring stores it.
func (l *rowLog) encoded() []byte {
	return l.b[:len(l.b)-int(l.spaces)]
}
