package termview

import (
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// linesPerWheelUnit turns wheel movement into lines: GLFW reports 25 units
// for one notch of a mouse wheel on Linux and Windows, and a notch scrolls
// three lines in most terminals. Touchpads report smaller steps, which add
// up in Terminal.wheel.
const linesPerWheelUnit = 3.0 / 25

// The view is a window onto the history: the scrollback lines (oldest
// first) followed by the rows of the screen. Line numbers in the history
// ("absolute lines") stay the same while new output scrolls more lines
// off, so a scrolled-up view and a selection stay on their text — until
// the scrollback is full: then each new line drops the oldest, and the
// view and selection drift up by the lines dropped (the emulator does not
// say how many were).

// A frame's scrollback is read when the frame arrives, not with it: lines
// that scroll off between the snapshot and the read show twice at the
// seam until the next frame, which comes within one frame interval.

// histLen is how many scrollback lines precede the screen: none on the
// alternate screen (full-screen programs have no history) or without a
// scrollback source.
func (t *Terminal) histLen() int {
	if t.sb == nil || t.snap == nil || t.snap.AltScreen {
		return 0
	}
	return t.sbLen
}

// followScrollback takes in a new frame's scrollback: at the bottom the
// view follows the output; scrolled up it stays on the lines it shows.
// The scrollback is read now, when the frame is new, so it and the screen
// are (nearly) from the same moment.
func (t *Terminal) followScrollback() {
	if t.sb == nil {
		return
	}
	n := t.sb.ScrollbackLen()
	if t.snap.AltScreen {
		t.offset = 0
	} else if t.offset > 0 {
		t.offset = min(max(t.offset+n-t.sbLen, 0), n)
	}
	t.sbLen = n
}

// lineAt returns absolute line i, padded or cut to the screen's width;
// buf is reused for scrollback lines and returned for the next call.
func (t *Terminal) lineAt(i int, buf []vt.Cell) (line, next []vt.Cell) {
	s := t.snap
	h := t.histLen()
	if i >= h {
		if i-h < s.Rows {
			return s.Lines[i-h], buf
		}
		return nil, buf
	}
	if i < 0 {
		return nil, buf
	}
	cells := t.sb.ScrollbackLine(i)
	buf = append(buf[:0], cells[:min(len(cells), s.Cols)]...)
	if n := len(buf); n > 0 && n < len(cells) && buf[n-1].Width == 2 {
		// Cut through a wide character: keep neither half.
		buf[n-1] = vt.Cell{Width: 1}
	}
	for len(buf) < s.Cols {
		buf = append(buf, vt.Cell{Width: 1})
	}
	return buf, buf
}

// viewTop is the absolute line shown in the view's first row.
func (t *Terminal) viewTop() int { return t.histLen() - t.offset }

// viewLine returns row y of the view (see lineAt for buf).
func (t *Terminal) viewLine(y int, buf []vt.Cell) (line, next []vt.Cell) {
	return t.lineAt(t.viewTop()+y, buf)
}

// Scrolled scrolls the view into the scrollback. A program that asked for
// the mouse gets the wheel as mouse reports instead, as in xterm; on the
// alternate screen, which has no scrollback, the wheel is sent as arrow
// keys (xterm's alternateScroll), so pagers and TUIs scroll as people
// expect.
func (t *Terminal) Scrolled(ev *fyne.ScrollEvent) {
	if t.snap == nil {
		return
	}
	t.wheel += ev.Scrolled.DY * linesPerWheelUnit
	n := int(t.wheel)
	t.wheel -= float32(n)
	if n == 0 {
		return
	}
	if t.snap.AltScreen || (t.snap.Modes.MouseTracking && t.offset == 0) {
		t.wheelToProgram(n, ev.Position)
		return
	}
	t.scrollTo(t.offset + n)
}

// scrollTo shows the view offset lines up from the live screen.
func (t *Terminal) scrollTo(offset int) {
	offset = min(max(offset, 0), t.histLen())
	if offset == t.offset {
		return
	}
	t.offset = offset
	t.repaint()
}

// snapBack returns the view to the live screen, as a keystroke does: the
// person types at the bottom.
func (t *Terminal) snapBack() { t.scrollTo(0) }

// wheelToProgram sends n lines of wheel movement (positive is up) at pos.
func (t *Terminal) wheelToProgram(n int, pos fyne.Position) {
	m := t.snap.Modes
	up := n > 0
	if n < 0 {
		n = -n
	}
	var seq []byte
	switch {
	case m.MouseTracking:
		col, row := t.cellAt(pos)
		button := 64
		if !up {
			button = 65
		}
		if m.SGRMouse {
			seq = fmt.Appendf(nil, "\x1b[<%d;%d;%dM", button, col+1, row+1)
		} else if col < 223 && row < 223 {
			seq = []byte{0x1b, '[', 'M', byte(32 + button), byte(33 + col), byte(33 + row)}
		}
	case up:
		seq = encodeKey(fyne.KeyUp, 0, m)
	default:
		seq = encodeKey(fyne.KeyDown, 0, m)
	}
	if seq == nil {
		return
	}
	out := make([]byte, 0, n*len(seq))
	for range n {
		out = append(out, seq...)
	}
	_ = t.target.Input(out)
}

// scrolledLabel is the indicator's text while the view is scrolled up.
func scrolledLabel(offset int) string {
	if offset == 1 {
		return "↑ 1 line"
	}
	return fmt.Sprintf("↑ %d lines", offset)
}
