package vt

import "testing"

func TestModes(t *testing.T) {
	defaults := Modes{AutoWrap: true, CursorVisible: true}
	tests := []struct {
		name  string
		input string
		want  Modes
	}{
		{"defaults", "", defaults},
		{"bracketed paste", "\x1b[?2004h", Modes{AutoWrap: true, CursorVisible: true, BracketedPaste: true}},
		{"bracketed paste off", "\x1b[?2004h\x1b[?2004l", defaults},
		{"cursor keys", "\x1b[?1h", Modes{AutoWrap: true, CursorVisible: true, AppCursorKeys: true}},
		{"keypad", "\x1b=", Modes{AutoWrap: true, CursorVisible: true, AppKeypad: true}},
		{"keypad off", "\x1b=\x1b>", defaults},
		{"cursor hidden", "\x1b[?25l", Modes{AutoWrap: true}},
		{"autowrap off", "\x1b[?7l", Modes{CursorVisible: true}},
		{"several at once", "\x1b[?1;2004;25l\x1b[?1;2004h", Modes{AutoWrap: true, AppCursorKeys: true, BracketedPaste: true}},
		{"mouse 1000", "\x1b[?1000h", Modes{AutoWrap: true, CursorVisible: true, MouseTracking: true, MouseMode: 1000}},
		{"mouse 1002 + SGR", "\x1b[?1002h\x1b[?1006h", Modes{AutoWrap: true, CursorVisible: true, MouseTracking: true, MouseMode: 1002, SGRMouse: true}},
		{"mouse 1003 off", "\x1b[?1003h\x1b[?1003l", defaults},
		{"resetting another mouse mode keeps this one", "\x1b[?1003h\x1b[?1000l", Modes{AutoWrap: true, CursorVisible: true, MouseTracking: true, MouseMode: 1003}},
		{"focus", "\x1b[?1004h", Modes{AutoWrap: true, CursorVisible: true, FocusEvents: true}},
		{"synchronized output", "\x1b[?2026h", Modes{AutoWrap: true, CursorVisible: true, SyncUpdate: true}},
		{"reverse video", "\x1b[?5h", Modes{AutoWrap: true, CursorVisible: true, ReverseVideo: true}},
		{"insert", "\x1b[4h", Modes{AutoWrap: true, CursorVisible: true, Insert: true}},
		{"LNM", "\x1b[20h", Modes{AutoWrap: true, CursorVisible: true, LineFeedNewLine: true}},
		{"origin", "\x1b[?6h", Modes{AutoWrap: true, CursorVisible: true, Origin: true}},
		{"alt screen", "\x1b[?1049h", Modes{AutoWrap: true, CursorVisible: true, AltScreen: true}},
		{"cursor style", "\x1b[5 q", Modes{AutoWrap: true, CursorVisible: true, CursorStyle: 5}},
		{"cursor blink", "\x1b[?12h", Modes{AutoWrap: true, CursorVisible: true, CursorBlink: true}},
		{"unknown modes are ignored", "\x1b[?9999h\x1b[99h", defaults},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 10, 3, tt.input)
			if got := term.Modes(); got != tt.want {
				t.Errorf("Modes = %+v\nwant    %+v", got, tt.want)
			}
		})
	}
}

func TestReset(t *testing.T) {
	setup := "\x1b]2;title\x07" + "a\r\nb\r\nc\r\nd" + // one line to scrollback
		"\x1b[?1h\x1b[?2004h\x1b=\x1b[4h\x1b[?25l\x1b[2;3r\x1b(0\x1b[1;31m\x1b[3g\x1b[?1049hALT"
	t.Run("RIS", func(t *testing.T) {
		term := newTerm(t, 10, 3, setup+"\x1bc")
		if got, want := term.Modes(), (Modes{AutoWrap: true, CursorVisible: true}); got != want {
			t.Errorf("Modes = %+v", got)
		}
		wantText(t, term, "")
		wantCursor(t, term, 0, 0)
		write(t, term, "q\t|")
		wantText(t, term, "q       |") // ASCII charset, default tabs
		if term.top != 0 || term.bot != 2 {
			t.Errorf("scroll region %d..%d after RIS", term.top, term.bot)
		}
		if c := cell(term, 0, 0); c.Fg != DefaultColor || c.Attr != 0 {
			t.Errorf("pen after RIS: %+v", c)
		}
		if term.Title() != "title" || term.ScrollbackLen() == 0 {
			t.Error("RIS dropped the title or the scrollback")
		}
		write(t, term, "\x1b[?47h") // 47 shows the alternate screen as it is
		wantText(t, term, "")
		checkInvariants(t, term)
	})
	t.Run("DECSTR", func(t *testing.T) {
		term := newTerm(t, 10, 3, "\x1b[?1h\x1b[4h\x1b[?25l\x1b[?7l\x1b[?6h\x1b(0\x1b[1;31mhello\x1b[2;3r\x1b[!p")
		m := term.Modes()
		if m.AppCursorKeys || m.Insert || !m.CursorVisible || !m.AutoWrap || m.Origin {
			t.Errorf("Modes = %+v", m)
		}
		write(t, term, "q") // DECSTBM homed the cursor to the region's top
		if c := cell(term, 0, 1); c.Rune != 'q' || c.Fg != DefaultColor {
			t.Errorf("cell after DECSTR: %+v", c)
		}
	})
}

// TestSaveRestoreCursorAttributes checks that DECSC keeps the pen and the
// charset along with the position, and DECRC brings them back.
func TestSaveRestoreCursorAttributes(t *testing.T) {
	term := newTerm(t, 10, 3, "\x1b[2;2H\x1b[4;32m\x1b(0\x1b7\x1b[m\x1b(B\x1b[Hx\x1b8q")
	c := cell(term, 1, 1)
	if c.Rune != '─' || c.Fg != IndexedColor(2) || c.Attr != Underline {
		t.Errorf("cell after DECRC = %+v", c)
	}
	if c := cell(term, 0, 0); c.Rune != 'x' || c.Attr != 0 {
		t.Errorf("cell between = %+v", c)
	}
}
