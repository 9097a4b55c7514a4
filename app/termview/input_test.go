package termview

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Ways a key reaches the widget, as Fyne's desktop driver delivers them.
func key(name fyne.KeyName) func(*Terminal) {
	return func(term *Terminal) { term.TypedKey(&fyne.KeyEvent{Name: name}) }
}

// held presses name while modifier keys are held, tracked through
// KeyDown/KeyUp as with a driver that cannot report modifiers.
func held(name fyne.KeyName, modKeys ...fyne.KeyName) func(*Terminal) {
	return func(term *Terminal) {
		for _, m := range modKeys {
			term.KeyDown(&fyne.KeyEvent{Name: m})
		}
		term.KeyDown(&fyne.KeyEvent{Name: name})
		term.TypedKey(&fyne.KeyEvent{Name: name})
		term.KeyUp(&fyne.KeyEvent{Name: name})
		for _, m := range modKeys {
			term.KeyUp(&fyne.KeyEvent{Name: m})
		}
	}
}

func custom(name fyne.KeyName, mods fyne.KeyModifier) func(*Terminal) {
	return func(term *Terminal) {
		term.TypedShortcut(&desktop.CustomShortcut{KeyName: name, Modifier: mods})
	}
}

func shortcut(s fyne.Shortcut) func(*Terminal) {
	return func(term *Terminal) { term.TypedShortcut(s) }
}

const (
	ctrl  = fyne.KeyModifierControl
	shift = fyne.KeyModifierShift
	alt   = fyne.KeyModifierAlt
)

func TestKeys(t *testing.T) {
	type keyCase struct {
		name string
		do   func(*Terminal)
		// want is sent in normal mode, app in application cursor key
		// mode; app "" means the same as want.
		want, app string
	}
	cases := []keyCase{
		{"Return", key(fyne.KeyReturn), "\r", ""},
		{"keypad Enter", key(fyne.KeyEnter), "\r", ""},
		{"Shift+Return", held(fyne.KeyReturn, desktop.KeyShiftLeft), "\x1b\r", ""},
		{"Alt+Return", custom(fyne.KeyReturn, alt), "\x1b\r", ""},
		{"Ctrl+Return", custom(fyne.KeyReturn, ctrl), "\r", ""},
		{"Backspace", key(fyne.KeyBackspace), "\x7f", ""},
		{"Ctrl+Backspace", custom(fyne.KeyBackspace, ctrl), "\x08", ""},
		{"Alt+Backspace", custom(fyne.KeyBackspace, alt), "\x1b\x7f", ""},
		{"Tab", key(fyne.KeyTab), "\t", ""},
		{"Shift+Tab", held(fyne.KeyTab, desktop.KeyShiftRight), "\x1b[Z", ""},
		{"Escape", key(fyne.KeyEscape), "\x1b", ""},
		{"Up", key(fyne.KeyUp), "\x1b[A", "\x1bOA"},
		{"Down", key(fyne.KeyDown), "\x1b[B", "\x1bOB"},
		{"Right", key(fyne.KeyRight), "\x1b[C", "\x1bOC"},
		{"Left", key(fyne.KeyLeft), "\x1b[D", "\x1bOD"},
		{"Home", key(fyne.KeyHome), "\x1b[H", "\x1bOH"},
		{"End", key(fyne.KeyEnd), "\x1b[F", "\x1bOF"},
		{"Shift+Up", held(fyne.KeyUp, desktop.KeyShiftLeft), "\x1b[1;2A", ""},
		{"Ctrl+Left", custom(fyne.KeyLeft, ctrl), "\x1b[1;5D", ""},
		{"Alt+Right", custom(fyne.KeyRight, alt), "\x1b[1;3C", ""},
		{"Ctrl+Shift+End", custom(fyne.KeyEnd, ctrl|shift), "\x1b[1;6F", ""},
		{"PageUp", key(fyne.KeyPageUp), "\x1b[5~", ""},
		{"PageDown", key(fyne.KeyPageDown), "\x1b[6~", ""},
		{"Shift+PageUp", held(fyne.KeyPageUp, desktop.KeyShiftLeft), "\x1b[5;2~", ""},
		{"Insert", key(fyne.KeyInsert), "\x1b[2~", ""},
		{"Delete", key(fyne.KeyDelete), "\x1b[3~", ""},
		{"Ctrl+Delete", custom(fyne.KeyDelete, ctrl), "\x1b[3;5~", ""},
		{"Shift+Delete", func(term *Terminal) {
			term.KeyDown(&fyne.KeyEvent{Name: fyne.KeyDelete})
			term.TypedShortcut(&fyne.ShortcutCut{})
		}, "\x1b[3;2~", ""},
		{"F1", key(fyne.KeyF1), "\x1bOP", ""},
		{"F2", key(fyne.KeyF2), "\x1bOQ", ""},
		{"F3", key(fyne.KeyF3), "\x1bOR", ""},
		{"F4", key(fyne.KeyF4), "\x1bOS", ""},
		{"Shift+F1", held(fyne.KeyF1, desktop.KeyShiftLeft), "\x1b[1;2P", ""},
		{"F5", key(fyne.KeyF5), "\x1b[15~", ""},
		{"F6", key(fyne.KeyF6), "\x1b[17~", ""},
		{"F7", key(fyne.KeyF7), "\x1b[18~", ""},
		{"F8", key(fyne.KeyF8), "\x1b[19~", ""},
		{"F9", key(fyne.KeyF9), "\x1b[20~", ""},
		{"F10", key(fyne.KeyF10), "\x1b[21~", ""},
		{"F11", key(fyne.KeyF11), "\x1b[23~", ""},
		{"F12", key(fyne.KeyF12), "\x1b[24~", ""},
		{"Ctrl+F5", custom(fyne.KeyF5, ctrl), "\x1b[15;5~", ""},
		// Keys that type a character send it through TypedRune only.
		{"A as a key", key(fyne.KeyA), "", ""},
		{"Space as a key", key(fyne.KeySpace), "", ""},
		// Control characters. Fyne delivers Ctrl+C, V, X, A, Z and Y as
		// its standard shortcuts, every other one as a CustomShortcut.
		{"Ctrl+C", shortcut(&fyne.ShortcutCopy{}), "\x03", ""},
		{"Ctrl+V", shortcut(&fyne.ShortcutPaste{}), "\x16", ""},
		{"Ctrl+X", shortcut(&fyne.ShortcutCut{}), "\x18", ""},
		{"Ctrl+A", shortcut(&fyne.ShortcutSelectAll{}), "\x01", ""},
		{"Ctrl+Z", shortcut(&fyne.ShortcutUndo{}), "\x1a", ""},
		{"Ctrl+Y", shortcut(&fyne.ShortcutRedo{}), "\x19", ""},
		{"Ctrl+D", custom(fyne.KeyD, ctrl), "\x04", ""},
		{"Ctrl+R", custom(fyne.KeyR, ctrl), "\x12", ""},
		{"Ctrl+B", custom(fyne.KeyB, ctrl), "\x02", ""},
		{"Ctrl+Shift+D", custom(fyne.KeyD, ctrl|shift), "\x04", ""},
		{"Ctrl+[", custom(fyne.KeyLeftBracket, ctrl), "\x1b", ""},
		{"Ctrl+\\", custom(fyne.KeyBackslash, ctrl), "\x1c", ""},
		{"Ctrl+]", custom(fyne.KeyRightBracket, ctrl), "\x1d", ""},
		{"Ctrl+Space", custom(fyne.KeySpace, ctrl), "\x00", ""},
		{"Ctrl+/", custom(fyne.KeySlash, ctrl), "\x1f", ""},
		{"Ctrl+Tab", custom(fyne.KeyTab, ctrl), "\t", ""},
		{"Ctrl+;", custom(fyne.KeySemicolon, ctrl), "", ""},
		// Alt sends ESC before the key.
		{"Alt+b", custom(fyne.KeyB, alt), "\x1bb", ""},
		{"Alt+Shift+B", custom(fyne.KeyB, alt|shift), "\x1bB", ""},
		{"Alt+.", custom(fyne.KeyPeriod, alt), "\x1b.", ""},
		{"Alt+1", custom(fyne.Key1, alt), "\x1b1", ""},
		{"Alt+Space", custom(fyne.KeySpace, alt), "\x1b ", ""},
		{"Ctrl+Alt+C", custom(fyne.KeyC, ctrl|alt), "\x1b\x03", ""},
		{"Alt+Escape", custom(fyne.KeyEscape, alt), "\x1b\x1b", ""},
		// Super is the window manager's.
		{"Super+L", custom(fyne.KeyL, fyne.KeyModifierSuper), "", ""},
	}
	for _, appMode := range []bool{false, true} {
		for _, tc := range cases {
			name := tc.name
			if appMode {
				name += " app mode"
			}
			t.Run(name, func(t *testing.T) {
				term, rec, _ := newTestTerminal(t, theme.VariantDark)
				term.macKeys = false
				test.NewTempWindow(t, term)
				snap := screen(20, 5, "").Snapshot()
				snap.Modes.AppCursorKeys = appMode
				term.SetSnapshot(snap)
				tc.do(term)
				want := tc.want
				if appMode && tc.app != "" {
					want = tc.app
				}
				if got := rec.take(); got != want {
					t.Errorf("sent %q, want %q", got, want)
				}
			})
		}
	}
}

func TestKeypadEnterInAppKeypadMode(t *testing.T) {
	if got := string(encodeKey(fyne.KeyEnter, 0, vt.Modes{AppKeypad: true})); got != "\x1bOM" {
		t.Errorf("keypad Enter sent %q, want ESC O M", got)
	}
	if got := string(encodeKey(fyne.KeyReturn, 0, vt.Modes{AppKeypad: true})); got != "\r" {
		t.Errorf("Return sent %q, want CR", got)
	}
}

func TestTypeReachesTarget(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	term.SetSnapshot(screen(20, 5, "").Snapshot())
	test.Type(term, "echo héllo 世界 🚀")
	if got := rec.take(); got != "echo héllo 世界 🚀" {
		t.Errorf("sent %q", got)
	}
	// What the driver does with a key press: it types into the focused
	// object.
	w.Canvas().Focus(term)
	test.Type(w.Canvas().Focused(), "ls -la")
	if got := rec.take(); got != "ls -la" {
		t.Errorf("typed into the focused widget, sent %q", got)
	}
}

func TestCopyAndPaste(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	term.macKeys = false
	test.NewTempWindow(t, term)
	term.SetSnapshot(screen(20, 3, "hello\r\n  world").Snapshot())
	clip := fyne.CurrentApp().Clipboard()

	// Without a selection, copy takes the whole screen.
	custom(fyne.KeyC, ctrl|shift)(term)
	if got := clip.Content(); got != "hello\n  world\n" {
		t.Errorf("Ctrl+Shift+C copied %q", got)
	}
	if got := rec.take(); got != "" {
		t.Errorf("Ctrl+Shift+C sent %q to the agent", got)
	}

	clip.SetContent("one\ntwo\r\nthree")
	custom(fyne.KeyV, ctrl|shift)(term)
	// Shift+Insert arrives as ShortcutPaste after the Insert key went down.
	term.KeyDown(&fyne.KeyEvent{Name: fyne.KeyInsert})
	term.TypedShortcut(&fyne.ShortcutPaste{})
	want := []string{"one\rtwo\rthree", "one\rtwo\rthree"}
	if len(rec.pastes) != 2 || rec.pastes[0] != want[0] || rec.pastes[1] != want[1] {
		t.Errorf("pasted %q, want %q", rec.pastes, want)
	}

	// Ctrl+Insert copies.
	clip.SetContent("")
	term.KeyDown(&fyne.KeyEvent{Name: fyne.KeyInsert})
	term.TypedShortcut(&fyne.ShortcutCopy{})
	if got := clip.Content(); got == "" {
		t.Error("Ctrl+Insert copied nothing")
	}

	// On macOS Command+C and Command+V are copy and paste.
	term.macKeys = true
	rec.pastes = nil
	clip.SetContent("x")
	term.KeyDown(&fyne.KeyEvent{Name: fyne.KeyV})
	term.TypedShortcut(&fyne.ShortcutPaste{})
	if len(rec.pastes) != 1 || rec.take() != "" {
		t.Errorf("Command+V: pastes %q", rec.pastes)
	}
	// and Ctrl+C is a CustomShortcut there.
	custom(fyne.KeyC, ctrl)(term)
	if got := rec.take(); got != "\x03" {
		t.Errorf("Ctrl+C on macOS sent %q", got)
	}
}

func TestFocusEvents(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	vterm := screen(20, 3, "\x1b[?1004h")
	term.SetSnapshot(vterm.Snapshot())
	w.Canvas().Focus(term)
	w.Canvas().Unfocus()
	if got := rec.take(); got != "\x1b[I\x1b[O" {
		t.Errorf("focus in and out sent %q", got)
	}
	_, _ = vterm.Write([]byte("\x1b[?1004l"))
	term.SetSnapshot(vterm.Snapshot())
	w.Canvas().Focus(term)
	if got := rec.take(); got != "" {
		t.Errorf("focus without ?1004 sent %q", got)
	}
}

func TestTapFocuses(t *testing.T) {
	term, _, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	test.Tap(term)
	if w.Canvas().Focused() != term {
		t.Error("a tap did not focus the terminal")
	}
}
