package termview

import (
	"fmt"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// How keys reach the widget in Fyne 2.7 (internal/driver/glfw/window.go):
//
//   - a key that types a character arrives twice, as TypedKey with its
//     name and as TypedRune with the character; the rune is what is sent;
//   - any key with Control, Alt or Super held (Shift alone does not count)
//     is a shortcut and arrives only as TypedShortcut: Ctrl+C, Ctrl+V,
//     Ctrl+X, Ctrl+A, Ctrl+Z and Ctrl+Y as fyne.ShortcutCopy, Paste, Cut,
//     SelectAll, Undo and Redo (Command instead of Control on macOS),
//     Ctrl+Insert as ShortcutCopy, Shift+Insert as ShortcutPaste,
//     Shift+Delete as ShortcutCut, everything else as a
//     desktop.CustomShortcut with the key and modifiers;
//   - Tab arrives only because the widget is fyne.Tabbable;
//   - TypedKey says nothing of Shift; the desktop driver can be asked
//     (desktop.Driver.CurrentKeyModifiers), and KeyDown/KeyUp track it
//     for drivers that cannot.
//
// In a terminal Ctrl+C must interrupt the agent, so on Linux and Windows
// the copy and paste shortcuts become the control characters they are,
// and copy and paste move to Ctrl+Shift+C and Ctrl+Shift+V (or
// Ctrl+Insert and Shift+Insert, or the context menu), as in GNOME Terminal.
// On macOS they are Command+C and Command+V and stay copy and paste.

// TypedRune sends a typed character as UTF-8.
func (t *Terminal) TypedRune(r rune) {
	t.send(utf8.AppendRune(nil, r))
}

// TypedKey sends the escape sequence of a key that types no character.
func (t *Terminal) TypedKey(ev *fyne.KeyEvent) {
	if typesChar(ev.Name) {
		return // TypedRune sends it
	}
	t.send(encodeKey(ev.Name, t.modifiers(), t.modes()))
}

// TypedShortcut turns Fyne's shortcuts back into keys (see above).
func (t *Terminal) TypedShortcut(s fyne.Shortcut) {
	ctrl := fyne.KeyModifierControl
	switch s := s.(type) {
	case *desktop.CustomShortcut:
		t.customShortcut(s.KeyName, s.Modifier)
	case *fyne.ShortcutCopy:
		if t.macKeys || t.lastKey == fyne.KeyInsert {
			t.copyToClipboard()
		} else {
			t.sendKey(fyne.KeyC, ctrl)
		}
	case *fyne.ShortcutPaste:
		if t.macKeys || t.lastKey == fyne.KeyInsert {
			t.pasteClipboard()
		} else {
			t.sendKey(fyne.KeyV, ctrl)
		}
	case *fyne.ShortcutCut:
		switch {
		case t.lastKey == fyne.KeyDelete:
			t.sendKey(fyne.KeyDelete, fyne.KeyModifierShift)
		case t.macKeys:
			t.copyToClipboard() // the screen cannot be cut from
		default:
			t.sendKey(fyne.KeyX, ctrl)
		}
	case *fyne.ShortcutSelectAll:
		if !t.macKeys {
			t.sendKey(fyne.KeyA, ctrl)
		}
	case *fyne.ShortcutUndo:
		if !t.macKeys {
			t.sendKey(fyne.KeyZ, ctrl)
		}
	case *fyne.ShortcutRedo:
		if !t.macKeys {
			t.sendKey(fyne.KeyY, ctrl)
		}
	}
}

// customShortcut handles a key pressed with Control, Alt or Super.
func (t *Terminal) customShortcut(name fyne.KeyName, mods fyne.KeyModifier) {
	switch {
	case mods == fyne.KeyModifierControl|fyne.KeyModifierShift && name == fyne.KeyC:
		t.copyToClipboard()
	case mods == fyne.KeyModifierControl|fyne.KeyModifierShift && name == fyne.KeyV:
		t.pasteClipboard()
	case mods&fyne.KeyModifierSuper != 0:
		// Super belongs to the window manager, Command to the app.
	default:
		t.sendKey(name, mods)
	}
}

// KeyDown tracks modifiers and the last key pressed (see Terminal.mods).
func (t *Terminal) KeyDown(ev *fyne.KeyEvent) {
	t.lastKey = ev.Name
	t.mods |= modifierOf(ev.Name)
}

// KeyUp tracks modifiers.
func (t *Terminal) KeyUp(ev *fyne.KeyEvent) {
	t.mods &^= modifierOf(ev.Name)
}

// modifierOf returns the modifier a key is, 0 for other keys.
func modifierOf(name fyne.KeyName) fyne.KeyModifier {
	switch name {
	case desktop.KeyShiftLeft, desktop.KeyShiftRight:
		return fyne.KeyModifierShift
	case desktop.KeyControlLeft, desktop.KeyControlRight:
		return fyne.KeyModifierControl
	case desktop.KeyAltLeft, desktop.KeyAltRight:
		return fyne.KeyModifierAlt
	case desktop.KeySuperLeft, desktop.KeySuperRight:
		return fyne.KeyModifierSuper
	}
	return 0
}

// modifiers returns the modifiers held: the driver's answer when it has
// one, else those tracked from KeyDown and KeyUp.
func (t *Terminal) modifiers() fyne.KeyModifier {
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		return d.CurrentKeyModifiers()
	}
	return t.mods
}

// modes are the terminal modes of the screen shown.
func (t *Terminal) modes() vt.Modes {
	if t.snap == nil {
		return vt.Modes{}
	}
	return t.snap.Modes
}

// sendKey sends key name with modifiers mods.
func (t *Terminal) sendKey(name fyne.KeyName, mods fyne.KeyModifier) {
	t.send(encodeKey(name, mods, t.modes()))
}

// send gives typed bytes to the target. Typing returns the view to the
// live screen and drops the selection, as terminals do. An error means the
// agent has ended or stopped reading; the session reports that itself.
func (t *Terminal) send(p []byte) {
	if len(p) == 0 {
		return
	}
	t.snapBack()
	t.clearSelection()
	_ = t.target.Input(p)
}

// typesChar reports whether a key types a character, which TypedRune
// delivers.
func typesChar(name fyne.KeyName) bool {
	_, ok := keyChar(name, false)
	return ok
}

// keyChar returns the character an unmodified (or shifted) key types on a
// US layout. Only letters can be shifted here; a shifted digit or symbol
// depends on the layout, which Fyne does not tell.
func keyChar(name fyne.KeyName, shift bool) (byte, bool) {
	if name == fyne.KeySpace {
		return ' ', true
	}
	if len(name) != 1 {
		return 0, false
	}
	c := name[0]
	switch {
	case c >= 'A' && c <= 'Z':
		if !shift {
			c += 'a' - 'A'
		}
		return c, true
	case c >= '0' && c <= '9':
		return c, true
	case c > ' ' && c < 0x7f:
		return c, true
	}
	return 0, false
}

// ctrlChar returns the control character Ctrl+key sends, as xterm does:
// Ctrl+letter is 0x01–0x1a, Ctrl+Space and Ctrl+2 NUL, Ctrl+[ ESC,
// Ctrl+\ 0x1c, Ctrl+] 0x1d, Ctrl+6 0x1e, Ctrl+/ and Ctrl+- 0x1f, Ctrl+8
// DEL, and Ctrl+3..7 the same as [ \ ] 6 / .
func ctrlChar(name fyne.KeyName) (byte, bool) {
	if len(name) == 1 && name[0] >= 'A' && name[0] <= 'Z' {
		return name[0] - 'A' + 1, true
	}
	switch name {
	case fyne.KeySpace, fyne.Key2:
		return 0x00, true
	case fyne.KeyLeftBracket, fyne.Key3:
		return 0x1b, true
	case fyne.KeyBackslash, fyne.Key4:
		return 0x1c, true
	case fyne.KeyRightBracket, fyne.Key5:
		return 0x1d, true
	case fyne.Key6:
		return 0x1e, true
	case fyne.KeySlash, fyne.KeyMinus, fyne.Key7:
		return 0x1f, true
	case fyne.Key8:
		return 0x7f, true
	}
	return 0, false
}

// cursorFinal returns the final byte of the cursor keys, which DECCKM
// switches between CSI and SS3.
func cursorFinal(name fyne.KeyName) (byte, bool) {
	switch name {
	case fyne.KeyUp:
		return 'A', true
	case fyne.KeyDown:
		return 'B', true
	case fyne.KeyRight:
		return 'C', true
	case fyne.KeyLeft:
		return 'D', true
	case fyne.KeyHome:
		return 'H', true
	case fyne.KeyEnd:
		return 'F', true
	}
	return 0, false
}

// functionFinal returns the SS3 final byte of F1–F4.
func functionFinal(name fyne.KeyName) (byte, bool) {
	switch name {
	case fyne.KeyF1:
		return 'P', true
	case fyne.KeyF2:
		return 'Q', true
	case fyne.KeyF3:
		return 'R', true
	case fyne.KeyF4:
		return 'S', true
	}
	return 0, false
}

// tildeCode returns n of the keys sent as CSI n ~.
func tildeCode(name fyne.KeyName) (int, bool) {
	switch name {
	case fyne.KeyInsert:
		return 2, true
	case fyne.KeyDelete:
		return 3, true
	case fyne.KeyPageUp:
		return 5, true
	case fyne.KeyPageDown:
		return 6, true
	case fyne.KeyF5:
		return 15, true
	case fyne.KeyF6:
		return 17, true
	case fyne.KeyF7:
		return 18, true
	case fyne.KeyF8:
		return 19, true
	case fyne.KeyF9:
		return 20, true
	case fyne.KeyF10:
		return 21, true
	case fyne.KeyF11:
		return 23, true
	case fyne.KeyF12:
		return 24, true
	}
	return 0, false
}

// encodeKey returns what xterm sends for key name with modifiers mods in
// modes m, nil for a key that sends nothing.
//
// Cursor, editing and function keys with modifiers carry xterm's modifier
// parameter, 1 + Shift(1) + Alt(2) + Ctrl(4): Ctrl+Left is ESC[1;5D. Alt
// before a character sends ESC first (Meta sends Escape). Shift+Tab is
// ESC[Z, which Claude Code uses to switch modes. Shift+Enter and
// Alt+Enter send ESC CR, which agent CLIs (Claude Code, Codex) take as a
// new line in the prompt rather than submitting it.
func encodeKey(name fyne.KeyName, mods fyne.KeyModifier, m vt.Modes) []byte {
	shift := mods&fyne.KeyModifierShift != 0
	alt := mods&fyne.KeyModifierAlt != 0
	ctrl := mods&fyne.KeyModifierControl != 0
	param := 1
	if shift {
		param++
	}
	if alt {
		param += 2
	}
	if ctrl {
		param += 4
	}
	if f, ok := cursorFinal(name); ok {
		switch {
		case param > 1:
			return fmt.Appendf(nil, "\x1b[1;%d%c", param, f)
		case m.AppCursorKeys:
			return []byte{0x1b, 'O', f}
		default:
			return []byte{0x1b, '[', f}
		}
	}
	if f, ok := functionFinal(name); ok {
		if param > 1 {
			return fmt.Appendf(nil, "\x1b[1;%d%c", param, f)
		}
		return []byte{0x1b, 'O', f}
	}
	if n, ok := tildeCode(name); ok {
		if param > 1 {
			return fmt.Appendf(nil, "\x1b[%d;%d~", n, param)
		}
		return fmt.Appendf(nil, "\x1b[%d~", n)
	}
	var b []byte
	switch name {
	case fyne.KeyReturn, fyne.KeyEnter:
		switch {
		case name == fyne.KeyEnter && m.AppKeypad && mods == 0:
			return []byte("\x1bOM")
		case shift || alt:
			return []byte("\x1b\r")
		}
		return []byte("\r")
	case fyne.KeyTab:
		if shift {
			return []byte("\x1b[Z")
		}
		b = []byte{'\t'}
	case fyne.KeyBackspace:
		b = []byte{0x7f}
		if ctrl {
			b = []byte{0x08}
		}
	case fyne.KeyEscape:
		b = []byte{0x1b}
	default:
		c, ok := keyChar(name, shift)
		if !ok {
			return nil
		}
		if ctrl {
			if c, ok = ctrlChar(name); !ok {
				return nil
			}
		}
		b = []byte{c}
	}
	if alt {
		return append([]byte{0x1b}, b...)
	}
	return b
}
