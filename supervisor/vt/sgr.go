package vt

// sgr is Select Graphic Rendition: it sets the pen's colours and
// attributes. Extended colours come in both forms programs use, the
// semicolon one (38;5;n, 38;2;r;g;b) and the colon one with subparameters
// (38:5:n, 38:2::r:g:b, 38:2:r:g:b).
func (t *Terminal) sgr() {
	ps := &t.p
	n := ps.nparams()
	for i := 0; i < n; i++ {
		p := ps.params[i]
		// subs counts the colon subparameters that follow p.
		subs := 0
		for i+subs+1 < n && ps.isSub(i+subs+1) {
			subs++
		}
		switch p {
		case 0:
			t.pen.Fg, t.pen.Bg, t.pen.Attr = DefaultColor, DefaultColor, 0
		case 1:
			t.pen.Attr |= Bold
		case 2:
			t.pen.Attr |= Dim
		case 3:
			t.pen.Attr |= Italic
		case 4:
			// 4:0 is "no underline"; 4:1 to 4:5 are underline styles.
			if subs > 0 && ps.params[i+1] == 0 {
				t.pen.Attr &^= Underline
			} else {
				t.pen.Attr |= Underline
			}
		case 5, 6:
			t.pen.Attr |= Blink
		case 7:
			t.pen.Attr |= Reverse
		case 8:
			t.pen.Attr |= Hidden
		case 9:
			t.pen.Attr |= Strike
		case 21: // double underline
			t.pen.Attr |= Underline
		case 22:
			t.pen.Attr &^= Bold | Dim
		case 23:
			t.pen.Attr &^= Italic
		case 24:
			t.pen.Attr &^= Underline
		case 25:
			t.pen.Attr &^= Blink
		case 27:
			t.pen.Attr &^= Reverse
		case 28:
			t.pen.Attr &^= Hidden
		case 29:
			t.pen.Attr &^= Strike
		case 30, 31, 32, 33, 34, 35, 36, 37:
			t.pen.Fg = IndexedColor(uint8(p - 30))
		case 38:
			c, ok, used := t.extendedColor(i, subs)
			if ok {
				t.pen.Fg = c
			}
			i += used
			continue
		case 39:
			t.pen.Fg = DefaultColor
		case 40, 41, 42, 43, 44, 45, 46, 47:
			t.pen.Bg = IndexedColor(uint8(p - 40))
		case 48:
			c, ok, used := t.extendedColor(i, subs)
			if ok {
				t.pen.Bg = c
			}
			i += used
			continue
		case 49:
			t.pen.Bg = DefaultColor
		case 58:
			// Underline colour: parsed so its arguments are not read
			// as attributes, then dropped.
			_, _, used := t.extendedColor(i, subs)
			i += used
			continue
		case 90, 91, 92, 93, 94, 95, 96, 97:
			t.pen.Fg = IndexedColor(uint8(p - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			t.pen.Bg = IndexedColor(uint8(p - 100 + 8))
		}
		i += subs
	}
	t.dirty = true
}

// extendedColor reads the colour of a 38, 48 or 58 at parameter i, which
// has subs colon subparameters. It returns the colour, whether it was well
// formed, and how many parameters after i it used up.
func (t *Terminal) extendedColor(i, subs int) (Color, bool, int) {
	ps := &t.p
	colon := subs > 0
	var args []int
	if colon {
		args = ps.params[i+1 : i+1+subs]
	} else {
		args = ps.params[i+1 : ps.nparams()]
	}
	if len(args) == 0 {
		return 0, false, 0
	}
	switch args[0] {
	case 5:
		if len(args) < 2 {
			return 0, false, len(args)
		}
		c := IndexedColor(uint8(min(args[1], 255)))
		if colon {
			return c, true, subs
		}
		return c, true, 2
	case 2:
		rgb := args[1:]
		used := 4
		if colon {
			// 38:2:cs:r:g:b names a colour space first; 38:2:r:g:b
			// (what most programs send) does not.
			if len(rgb) >= 4 {
				rgb = rgb[1:]
			}
			used = subs
		}
		if len(rgb) < 3 {
			return 0, false, min(used, len(args))
		}
		return RGBColor(uint8(min(rgb[0], 255)), uint8(min(rgb[1], 255)), uint8(min(rgb[2], 255))), true, used
	}
	if colon {
		return 0, false, subs
	}
	// An unknown colour kind: skip just the kind, as xterm does.
	return 0, false, 1
}
