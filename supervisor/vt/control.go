package vt

// execute performs a C0 control character.
func (t *Terminal) execute(b byte) {
	switch b {
	case 0x07: // BEL
		t.bells++
	case 0x08: // BS
		if t.x > 0 {
			t.x--
		}
		t.wrapPending = false
		t.dirty = true
	case 0x09: // HT
		t.tabForward(1)
	case 0x0a, 0x0b, 0x0c: // LF, VT, FF
		t.index()
		if t.modes.LineFeedNewLine {
			t.x = 0
		}
	case 0x0d: // CR
		t.x = 0
		t.wrapPending = false
		t.dirty = true
	case 0x0e: // SO: G1 into GL
		t.gl = 1
	case 0x0f: // SI: G0 into GL
		t.gl = 0
	}
}

// escDispatch performs ESC followed by final byte b, with the intermediate
// byte collected in between, if any.
func (t *Terminal) escDispatch(b byte) {
	if t.p.ninter > 1 {
		return
	}
	switch t.p.inter {
	case 0:
	case '(', ')':
		// Designate G0 or G1: 0 is DEC Special Graphics, anything else
		// (B, and the national sets no agent uses) is ASCII.
		cs := charsetASCII
		if b == '0' {
			cs = charsetDECGraphics
		}
		t.charsets[t.p.inter-'('] = cs
		return
	case '#':
		if b == '8' {
			t.alignmentTest()
		}
		return
	default:
		return
	}
	switch b {
	case '7': // DECSC
		t.saveCursor()
	case '8': // DECRC
		t.restoreCursor()
	case 'D': // IND
		t.index()
	case 'E': // NEL
		t.index()
		t.x = 0
	case 'M': // RI
		t.reverseIndex()
	case 'H': // HTS
		t.tabs[t.x] = true
	case 'c': // RIS
		t.fullReset()
	case '=': // DECKPAM
		t.modes.AppKeypad = true
	case '>': // DECKPNM
		t.modes.AppKeypad = false
	case 'Z': // DECID, the old form of DA
		t.sendReply(da1Reply)
	}
}

// fullReset is RIS: the power-on state with both screens cleared. The
// scrollback and the title are kept: a program's "reset" should not throw
// away the history the user may still want to read.
func (t *Terminal) fullReset() {
	t.switchScreen(false)
	t.resetState()
	t.main.clear(blankCell)
	t.alt.clear(blankCell)
	t.dirty = true
}

// softReset is DECSTR: modes and pen back to their defaults, the screen
// contents and cursor position left alone.
func (t *Terminal) softReset() {
	t.modes.CursorVisible = true
	t.modes.Insert = false
	t.modes.Origin = false
	t.modes.AutoWrap = true
	t.modes.AppCursorKeys = false
	t.modes.AppKeypad = false
	t.top, t.bot = 0, t.rows-1
	t.charsets, t.gl = [2]charset{}, 0
	t.pen = blankCell
	t.scr.saved = savedCursor{pen: blankCell}
	t.wrapPending = false
	t.dirty = true
}

// alignmentTest is DECALN: the screen filled with E, margins reset, the
// cursor home.
func (t *Terminal) alignmentTest() {
	t.scr.clear(Cell{Rune: 'E', Width: 1})
	t.top, t.bot = 0, t.rows-1
	t.modes.Origin = false
	t.cursorTo(0, 0)
}
