package vt

// Replies to device attribute requests. DA1 says "VT220-class with ANSI
// colour", which is what programs probe for; DA2 says VT220, version 10.
const (
	da1Reply = "\x1b[?62;22c"
	da2Reply = "\x1b[>1;10;0c"
)

// csiKey packs a sequence's private marker, intermediate byte and final byte
// so that dispatch is one switch.
func csiKey(marker, inter, final byte) uint32 {
	return uint32(marker)<<16 | uint32(inter)<<8 | uint32(final)
}

// csiDispatch performs a complete control sequence. Sequences it does not
// know are ignored; the parser has already consumed them whole.
func (t *Terminal) csiDispatch(final byte) {
	ps := &t.p
	if ps.ninter > 1 {
		return
	}
	n1 := ps.param(0, 1)
	switch csiKey(ps.marker, ps.inter, final) {
	case csiKey(0, 0, '@'): // ICH
		t.insertBlanks(t.y, t.x, n1)
		t.wrapPending = false
	case csiKey(0, 0, 'A'): // CUU
		t.cursorUp(n1)
	case csiKey(0, 0, 'B'), csiKey(0, 0, 'e'): // CUD, VPR
		t.cursorDown(n1)
	case csiKey(0, 0, 'C'), csiKey(0, 0, 'a'): // CUF, HPR
		t.cursorRight(n1)
	case csiKey(0, 0, 'D'): // CUB
		t.cursorRight(-n1)
	case csiKey(0, 0, 'E'): // CNL
		t.cursorDown(n1)
		t.x = 0
	case csiKey(0, 0, 'F'): // CPL
		t.cursorUp(n1)
		t.x = 0
	case csiKey(0, 0, 'G'), csiKey(0, 0, '`'): // CHA, HPA
		t.cursorRight(n1 - 1 - t.x)
	case csiKey(0, 0, 'H'), csiKey(0, 0, 'f'): // CUP, HVP
		t.cursorTo(ps.param(1, 1)-1, n1-1)
	case csiKey(0, 0, 'I'): // CHT
		t.tabForward(n1)
	case csiKey(0, 0, 'J'), csiKey('?', 0, 'J'): // ED, DECSED
		t.eraseDisplay(ps.param(0, 0))
	case csiKey(0, 0, 'K'), csiKey('?', 0, 'K'): // EL, DECSEL
		t.eraseLine(ps.param(0, 0))
	case csiKey(0, 0, 'L'): // IL
		if t.y >= t.top && t.y <= t.bot {
			t.scrollDown(t.y, t.bot, n1)
			t.x, t.wrapPending = 0, false
		}
	case csiKey(0, 0, 'M'): // DL
		if t.y >= t.top && t.y <= t.bot {
			t.scrollUp(t.y, t.bot, n1, false)
			t.x, t.wrapPending = 0, false
		}
	case csiKey(0, 0, 'P'): // DCH
		t.deleteCells(t.y, t.x, n1)
		t.wrapPending = false
	case csiKey(0, 0, 'S'): // SU
		if ps.nparams() == 1 {
			t.scrollUp(t.top, t.bot, n1, true)
		}
	case csiKey(0, 0, 'T'): // SD (with more parameters: mouse highlight)
		if ps.nparams() == 1 {
			t.scrollDown(t.top, t.bot, n1)
		}
	case csiKey(0, 0, 'X'): // ECH
		t.eraseRange(t.y, t.x, t.x+n1)
		t.wrapPending = false
	case csiKey(0, 0, 'Z'): // CBT
		t.tabBack(n1)
	case csiKey(0, 0, 'b'): // REP
		t.repeat(n1)
	case csiKey(0, 0, 'c'): // DA1
		if ps.param(0, 0) == 0 {
			t.sendReply(da1Reply)
		}
	case csiKey('>', 0, 'c'): // DA2
		if ps.param(0, 0) == 0 {
			t.sendReply(da2Reply)
		}
	case csiKey(0, 0, 'd'): // VPA
		t.cursorTo(t.x, n1-1)
	case csiKey(0, 0, 'g'): // TBC
		t.clearTabs(ps.param(0, 0))
	case csiKey(0, 0, 'h'), csiKey(0, 0, 'l'): // SM, RM
		for i := range ps.nparams() {
			t.setMode(ps.params[i], final == 'h')
		}
	case csiKey('?', 0, 'h'), csiKey('?', 0, 'l'): // DECSET, DECRST
		for i := range ps.nparams() {
			t.setPrivateMode(ps.params[i], final == 'h')
		}
	case csiKey(0, 0, 'm'): // SGR
		t.sgr()
	case csiKey(0, 0, 'n'): // DSR
		t.deviceStatus(ps.param(0, 0), false)
	case csiKey('?', 0, 'n'): // DECDSR
		t.deviceStatus(ps.param(0, 0), true)
	case csiKey(0, ' ', 'q'): // DECSCUSR
		t.modes.CursorStyle = ps.param(0, 0)
		t.dirty = true
	case csiKey('>', 0, 'q'): // XTVERSION
		t.sendReply("\x1bP>|switchboard-vt\x1b\\")
	case csiKey(0, 0, 'r'): // DECSTBM
		t.setMargins(n1, ps.param(1, t.rows))
	case csiKey(0, 0, 's'): // SCOSC
		t.saveCursor()
	case csiKey(0, 0, 'u'): // SCORC
		t.restoreCursor()
	case csiKey(0, 0, 't'): // XTWINOPS: only the text area size is answered
		if ps.param(0, 0) == 18 {
			t.sendReply("\x1b[8;%d;%dt", t.rows, t.cols)
		}
	case csiKey(0, '!', 'p'): // DECSTR
		t.softReset()
	case csiKey(0, '$', 'p'): // DECRQM, ANSI modes
		mode := ps.param(0, 0)
		t.sendReply("\x1b[%d;%d$y", mode, t.ansiModeState(mode))
	case csiKey('?', '$', 'p'): // DECRQM, private modes
		mode := ps.param(0, 0)
		t.sendReply("\x1b[?%d;%d$y", mode, t.privateModeState(mode))
	}
}

// eraseDisplay is ED: 0 below the cursor, 1 above it, 2 all, 3 the
// scrollback (the screen stays, as in xterm).
func (t *Terminal) eraseDisplay(mode int) {
	switch mode {
	case 0:
		t.eraseRange(t.y, t.x, t.cols)
		for y := t.y + 1; y < t.rows; y++ {
			t.eraseRange(y, 0, t.cols)
		}
	case 1:
		for y := range t.y {
			t.eraseRange(y, 0, t.cols)
		}
		t.eraseRange(t.y, 0, t.x+1)
	case 2:
		t.scr.clear(t.eraseCell())
		t.dirty = true
	case 3:
		t.sb.clear()
		t.dirty = true
	default:
		return
	}
	t.wrapPending = false
}

// eraseLine is EL: 0 right of the cursor, 1 left of it, 2 the whole line.
func (t *Terminal) eraseLine(mode int) {
	switch mode {
	case 0:
		t.eraseRange(t.y, t.x, t.cols)
	case 1:
		t.eraseRange(t.y, 0, t.x+1)
	case 2:
		t.eraseRange(t.y, 0, t.cols)
	default:
		return
	}
	t.wrapPending = false
}

// clearTabs is TBC: 0 the stop at the cursor, 3 every stop.
func (t *Terminal) clearTabs(mode int) {
	switch mode {
	case 0:
		t.tabs[t.x] = false
	case 3:
		clear(t.tabs)
	}
}

// setMargins is DECSTBM, with 1-based inclusive rows. A region of fewer
// than two rows is invalid and ignored, as in xterm.
func (t *Terminal) setMargins(top, bot int) {
	top, bot = top-1, min(bot, t.rows)-1
	if top >= bot {
		return
	}
	t.top, t.bot = top, bot
	t.cursorTo(0, 0)
}

// deviceStatus answers DSR: 5 is "OK", 6 the cursor position, relative to
// the scroll region in origin mode. DEC's form (?6n) answers with a '?'.
func (t *Terminal) deviceStatus(req int, dec bool) {
	switch req {
	case 5:
		if !dec {
			t.sendReply("\x1b[0n")
		}
	case 6:
		y := t.y
		if t.modes.Origin {
			y = max(y-t.top, 0)
		}
		if dec {
			t.sendReply("\x1b[?%d;%dR", y+1, t.x+1)
		} else {
			t.sendReply("\x1b[%d;%dR", y+1, t.x+1)
		}
	}
}
