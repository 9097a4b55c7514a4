package supervisor

import (
	"strconv"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// RenderScreen paints the current screen as terminal output: what an attach
// shows first, and again whenever it fell too far behind to replay the
// output it missed.
func (s *Session) RenderScreen() []byte { return renderANSI(s.term.Snapshot()) }

// renderANSI turns a snapshot into bytes that draw it on an xterm-like
// terminal: clear, every row in place with its colours, then the cursor.
func renderANSI(snap *vt.Snapshot) []byte {
	b := make([]byte, 0, snap.Cols*snap.Rows*2+64)
	b = append(b, "\x1b[0m\x1b[H\x1b[2J"...)
	var pen vt.Cell // the SGR state of the output so far: defaults
	for y, line := range snap.Lines {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(y+1), 10)
		b = append(b, ";1H"...)
		for _, c := range line {
			if c.Width == 0 {
				continue // right half of a wide character
			}
			if c.Fg != pen.Fg || c.Bg != pen.Bg || c.Attr != pen.Attr {
				b = appendSGR(b, c)
				pen = c
			}
			b = append(b, snap.Grapheme(c)...)
		}
	}
	b = append(b, "\x1b[0m\x1b["...)
	b = strconv.AppendInt(b, int64(snap.Cursor.Y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(snap.Cursor.X+1), 10)
	b = append(b, 'H')
	if snap.Cursor.Visible {
		b = append(b, "\x1b[?25h"...)
	} else {
		b = append(b, "\x1b[?25l"...)
	}
	return b
}

// appendSGR sets the pen to c's colours and renditions from scratch.
func appendSGR(b []byte, c vt.Cell) []byte {
	b = append(b, "\x1b[0"...)
	for i, code := range []byte{1, 2, 3, 4, 5, 7, 8, 9} {
		if c.Attr&(1<<i) != 0 {
			b = append(b, ';')
			b = strconv.AppendInt(b, int64(code), 10)
		}
	}
	b = appendColor(b, c.Fg, 38)
	b = appendColor(b, c.Bg, 48)
	return append(b, 'm')
}

func appendColor(b []byte, c vt.Color, base int64) []byte {
	if i, ok := c.Index(); ok {
		b = append(b, ';')
		b = strconv.AppendInt(b, base, 10)
		b = append(b, ";5;"...)
		return strconv.AppendInt(b, int64(i), 10)
	}
	if r, g, bl, ok := c.RGB(); ok {
		b = append(b, ';')
		b = strconv.AppendInt(b, base, 10)
		b = append(b, ";2;"...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	return b
}
