// Package flood makes the output of an agent printing as fast as it can:
// coloured, numbered lines, deterministic, so a test can tell whether every
// byte arrived.
package flood

import (
	"fmt"
	"io"
)

// Write writes exactly n bytes of flood output to w through a buffer of
// its own. Lines end in "\n" alone: the terminal's ONLCR adds the "\r".
func Write(w io.Writer, n int) error {
	buf := make([]byte, 0, 64<<10)
	for line := 0; n > 0; line++ {
		s := fmt.Sprintf("\x1b[33m%08d\x1b[0m the quick brown fox jumps over the lazy dog 0123456789 日本語 abcdefghijklmnopqrstuvwxyz\n", line)
		if len(s) > n {
			s = s[:n]
		}
		buf = append(buf, s...)
		n -= len(s)
		if len(buf) > cap(buf)-256 || n == 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// AsTerminalOutput is what reading the terminal gives for flood output of
// n bytes: every "\n" arrives as "\r\n".
func AsTerminalOutput(n int) []byte {
	var w termWriter
	Write(&w, n)
	return w.b
}

type termWriter struct{ b []byte }

func (w *termWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			w.b = append(w.b, '\r')
		}
		w.b = append(w.b, c)
	}
	return len(p), nil
}
