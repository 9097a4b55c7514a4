package vt

import "testing"

func TestAltScreen1049(t *testing.T) {
	term := newTerm(t, 10, 4, "shell$ ls\r\nfile\x1b[1;31m")
	write(t, term, "\x1b[?1049h")
	if !term.Modes().AltScreen || !term.Snapshot().AltScreen {
		t.Fatal("not on the alternate screen")
	}
	wantText(t, term, "")
	write(t, term, "\x1b[Htui\x1b[3;3Hbox\x1b[0m")
	wantText(t, term, "tui\n\n  box")
	write(t, term, "\x1b[?1049l")
	if term.Modes().AltScreen {
		t.Fatal("still on the alternate screen")
	}
	wantText(t, term, "shell$ ls\nfile")
	wantCursor(t, term, 4, 1)
	// The pen saved with the cursor comes back too.
	write(t, term, "x")
	if c := cell(term, 4, 1); c.Fg != IndexedColor(1) || c.Attr != Bold {
		t.Errorf("pen after 1049l: %+v", c)
	}
	// Entering again starts from a clear screen.
	write(t, term, "\x1b[?1049h")
	wantText(t, term, "")
}

func TestAltScreen47And1047(t *testing.T) {
	term := newTerm(t, 10, 3, "main")
	write(t, term, "\x1b[?47h")
	wantText(t, term, "")
	write(t, term, "alt\x1b[?47l")
	wantText(t, term, "main")
	wantCursor(t, term, 7, 0) // the cursor is not saved by 47
	write(t, term, "\x1b[?47h")
	wantText(t, term, "    alt") // 47 does not clear
	write(t, term, "\x1b[?47l\x1b[?1047h")
	wantText(t, term, "    alt")
	write(t, term, "\x1b[?1047l\x1b[?1047h")
	wantText(t, term, "") // 1047 clears the alternate screen on the way out
	write(t, term, "\x1b[?1047l")
	wantText(t, term, "main")
}

func TestSaveCursor1048(t *testing.T) {
	term := newTerm(t, 10, 3, "\x1b[2;3H\x1b[?1048h\x1b[H\x1b[?1048l")
	wantCursor(t, term, 2, 1)
}

func TestAltScreenKeepsNoScrollback(t *testing.T) {
	term := newTerm(t, 10, 2, "\x1b[?1049h1\r\n2\r\n3\r\n4\x1b[?1049l")
	if n := term.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen = %d", n)
	}
}

// TestSaveCursorPerScreen checks that DECSC on the alternate screen does
// not overwrite the cursor 1049 saved for the main screen.
func TestSaveCursorPerScreen(t *testing.T) {
	term := newTerm(t, 10, 4, "\x1b[2;2H\x1b[?1049h\x1b[3;3H\x1b7\x1b[H\x1b8")
	wantCursor(t, term, 2, 2)
	write(t, term, "\x1b[?1049l")
	wantCursor(t, term, 1, 1)
}
