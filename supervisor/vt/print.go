package vt

// maxCombBytes caps the combining marks stacked on one cell, so a stream
// of marks cannot grow a cell without bound.
const maxCombBytes = 32

// printASCII writes a run of printable ASCII (0x20–0x7e) at the cursor.
// It is the hot path: a compiler's or a shell's output is mostly such runs,
// so a run goes into the row with one store per character and no per-byte
// dispatch. Line drawing (DEC graphics) and insert mode take the general
// path instead.
func (t *Terminal) printASCII(run []byte) {
	if t.charsets[t.gl] != charsetASCII || t.modes.Insert {
		for _, b := range run {
			t.printRune(rune(b))
		}
		return
	}
	t.dirty = true
	t.lastRune = rune(run[len(run)-1])
	cols := t.cols
	fg, bg, attr := t.pen.Fg, t.pen.Bg, t.pen.Attr
	for len(run) > 0 {
		if t.wrapPending {
			t.x = 0
			t.index()
		}
		line := t.scr.line(t.y)
		x := t.x
		n := min(len(run), cols-x)
		t.scr.extend(t.y, x+n)
		if l := t.scr.log(t.y); l != nil {
			l.ascii(x, run[:n], &t.pen)
		}
		t.splitWide(line, x)
		t.splitWide(line, x+n)
		// Field by field: a Cell has too many fields for the compiler to
		// keep one in registers, and storing a whole Cell assembled on
		// the stack stalls on store forwarding, several times slower.
		dst := line[x : x+n]
		for k, b := range run[:len(dst)] {
			d := &dst[k]
			d.Rune = rune(b)
			d.Fg = fg
			d.Bg = bg
			d.Comb = 0
			d.Width = 1
			d.Attr = attr
		}
		run = run[n:]
		x += n
		if x < cols {
			t.x = x
			continue
		}
		t.x = cols - 1
		if t.modes.AutoWrap {
			t.wrapPending = true
			continue
		}
		if len(run) > 0 {
			// Without autowrap every further character lands on the
			// last column, so only the final one stays.
			c := t.pen
			c.Rune = rune(run[len(run)-1])
			line[cols-1] = c
			if l := t.scr.log(t.y); l != nil {
				l.ok = false
			}
			run = nil
		}
	}
}

// printRune writes one character at the cursor: it maps it through the
// active charset, handles wide characters and combining marks, and wraps
// or inserts as the modes say.
func (t *Terminal) printRune(r rune) {
	if r < 0x80 {
		r = mapCharset(t.charsets[t.gl], r)
	} else if r < 0xa0 {
		// C1 controls arriving as UTF-8 are not printable.
		return
	}
	w := runeWidth(r)
	if w == 0 {
		t.combine(r)
		return
	}
	t.dirty = true
	if t.wrapPending {
		t.x = 0
		t.index()
	}
	if w == 2 && t.x == t.cols-1 {
		switch {
		case t.cols < 2:
			w = 1
		case t.modes.AutoWrap:
			// A wide character never straddles the edge: it goes to
			// the next line and the last column stays as it was.
			t.x = 0
			t.index()
		default:
			t.x = t.cols - 2
		}
	}
	x := t.x
	if t.modes.Insert {
		t.insertBlanks(t.y, x, w)
	}
	line := t.scr.line(t.y)
	t.scr.extend(t.y, x+w)
	if l := t.scr.log(t.y); l != nil {
		if t.modes.Insert {
			l.ok = false
		} else {
			l.char(x, r, w, &t.pen)
		}
	}
	t.splitWide(line, x)
	t.splitWide(line, x+w)
	c := t.pen
	c.Rune = r
	c.Width = uint8(w)
	line[x] = c
	if w == 2 {
		c.Rune, c.Width = 0, 0
		line[x+1] = c
	}
	t.lastRune = r
	x += w
	if x < t.cols {
		t.x = x
		return
	}
	t.x = t.cols - 1
	t.wrapPending = t.modes.AutoWrap
}

// combine attaches a zero-width character (a combining accent, a variation
// selector, a joiner) to the character before the cursor. With nothing
// printed before the cursor on this line it is dropped, as xterm does.
func (t *Terminal) combine(r rune) {
	x := t.x
	if !t.wrapPending {
		x--
	}
	line := t.scr.line(t.y)
	if x >= 0 && line[x].Width == 0 {
		x--
	}
	if x < 0 || line[x].Rune == 0 {
		return
	}
	marks := t.combs[line[x].Comb] + string(r)
	if len(marks) > maxCombBytes {
		return
	}
	id, ok := t.combIDs[marks]
	if !ok {
		if len(t.combs) > 0xffff {
			// The table is full: the mark is dropped rather than
			// letting a hostile stream grow it forever.
			return
		}
		if t.combIDs == nil {
			t.combIDs = make(map[string]uint16)
		}
		id = uint16(len(t.combs))
		t.combs = append(t.combs, marks)
		t.combIDs[marks] = id
	}
	line[x].Comb = id
	if l := t.scr.log(t.y); l != nil {
		l.mark(x, id)
	}
	t.dirty = true
}

// repeat is REP: it prints the last printed character n more times. The
// count is capped at a screenful, which looks the same as any more: without
// the cap eight bytes of input could cost 65,535 characters of work.
func (t *Terminal) repeat(n int) {
	if t.lastRune == 0 {
		return
	}
	n = min(n, t.cols*t.rows)
	r := t.lastRune
	// Charset mapping already happened when r was first printed.
	cs := t.charsets[t.gl]
	t.charsets[t.gl] = charsetASCII
	for range n {
		t.printRune(r)
	}
	t.charsets[t.gl] = cs
}
