package vt

// Modes are the terminal modes a program switches with SM/RM and
// DECSET/DECRST (and a few escape sequences). The GUI reads them to encode
// input the way the program expects: bracketed paste, cursor keys, mouse.
type Modes struct {
	// BracketedPaste (?2004): wrap pasted text in ESC[200~ … ESC[201~.
	BracketedPaste bool
	// AppCursorKeys (?1, DECCKM): cursor keys send ESC O A, not ESC [ A.
	AppCursorKeys bool
	// AppKeypad (ESC =, DECKPAM): the keypad sends application sequences.
	AppKeypad bool
	// AltScreen: the alternate screen (?47, ?1047, ?1049) is shown.
	AltScreen bool
	// CursorVisible (?25, DECTCEM).
	CursorVisible bool
	// AutoWrap (?7, DECAWM): printing past the last column wraps.
	AutoWrap bool
	// Origin (?6, DECOM): cursor addressing is relative to the scroll region.
	Origin bool
	// Insert (SM 4, IRM): printing shifts the rest of the line right.
	Insert bool
	// LineFeedNewLine (SM 20, LNM): a line feed also returns the carriage.
	LineFeedNewLine bool
	// MouseTracking is set when any of ?9, ?1000, ?1002, ?1003 is on;
	// MouseMode says which (the last one set).
	MouseTracking bool
	MouseMode     int
	// SGRMouse (?1006): mouse reports use the SGR encoding.
	SGRMouse bool
	// FocusEvents (?1004): the program wants ESC[I / ESC[O on focus change.
	FocusEvents bool
	// SyncUpdate (?2026): the program is in the middle of a synchronized
	// update; a painter may hold the previous frame until it ends.
	SyncUpdate bool
	// ReverseVideo (?5, DECSCNM): the whole screen is drawn inverted.
	ReverseVideo bool
	// CursorBlink (?12) and CursorStyle (DECSCUSR, CSI Ps SP q: 0 default,
	// 1/2 block, 3/4 underline, 5/6 bar) describe how to draw the cursor.
	CursorBlink bool
	CursorStyle int
}

// setMode handles SM/RM (ANSI modes).
func (t *Terminal) setMode(mode int, on bool) {
	switch mode {
	case 4:
		t.modes.Insert = on
	case 20:
		t.modes.LineFeedNewLine = on
	default:
		return
	}
	t.dirty = true
}

// setPrivateMode handles DECSET/DECRST.
func (t *Terminal) setPrivateMode(mode int, on bool) {
	switch mode {
	case 1:
		t.modes.AppCursorKeys = on
	case 5:
		t.modes.ReverseVideo = on
	case 6:
		t.modes.Origin = on
		t.cursorTo(0, 0)
	case 7:
		t.modes.AutoWrap = on
		if !on {
			t.wrapPending = false
		}
	case 9, 1000, 1002, 1003:
		if on {
			t.modes.MouseTracking, t.modes.MouseMode = true, mode
		} else if t.modes.MouseMode == mode {
			t.modes.MouseTracking, t.modes.MouseMode = false, 0
		}
	case 12:
		t.modes.CursorBlink = on
	case 25:
		t.modes.CursorVisible = on
	case 47:
		t.switchScreen(on)
	case 1047:
		if !on && t.scr == &t.alt {
			t.alt.clear(t.eraseCell())
		}
		t.switchScreen(on)
	case 1048:
		if on {
			t.saveCursor()
		} else {
			t.restoreCursor()
		}
	case 1049:
		if on {
			if t.scr == &t.main {
				t.saveCursor()
			}
			t.switchScreen(true)
			t.alt.clear(t.eraseCell())
		} else if t.scr == &t.alt {
			t.switchScreen(false)
			t.restoreCursor()
		}
	case 1004:
		t.modes.FocusEvents = on
	case 1006:
		t.modes.SGRMouse = on
	case 2004:
		t.modes.BracketedPaste = on
	case 2026:
		t.modes.SyncUpdate = on
	default:
		return
	}
	t.dirty = true
}

// privateModeState answers DECRQM for a private mode: 1 set, 2 reset,
// 0 not recognised.
func (t *Terminal) privateModeState(mode int) int {
	var on bool
	switch mode {
	case 1:
		on = t.modes.AppCursorKeys
	case 5:
		on = t.modes.ReverseVideo
	case 6:
		on = t.modes.Origin
	case 7:
		on = t.modes.AutoWrap
	case 9, 1000, 1002, 1003:
		on = t.modes.MouseMode == mode
	case 12:
		on = t.modes.CursorBlink
	case 25:
		on = t.modes.CursorVisible
	case 47, 1047, 1049:
		on = t.modes.AltScreen
	case 1004:
		on = t.modes.FocusEvents
	case 1006:
		on = t.modes.SGRMouse
	case 2004:
		on = t.modes.BracketedPaste
	case 2026:
		on = t.modes.SyncUpdate
	default:
		return 0
	}
	if on {
		return 1
	}
	return 2
}

// ansiModeState answers DECRQM for an ANSI mode.
func (t *Terminal) ansiModeState(mode int) int {
	var on bool
	switch mode {
	case 4:
		on = t.modes.Insert
	case 20:
		on = t.modes.LineFeedNewLine
	default:
		return 0
	}
	if on {
		return 1
	}
	return 2
}

// switchScreen shows the alternate screen (alt) or the main one. The
// cursor is shared; 1049 saves and restores it around the switch.
func (t *Terminal) switchScreen(alt bool) {
	if alt == (t.scr == &t.alt) {
		return
	}
	if alt {
		t.scr = &t.alt
	} else {
		t.scr = &t.main
	}
	t.modes.AltScreen = alt
	t.dirty = true
}
