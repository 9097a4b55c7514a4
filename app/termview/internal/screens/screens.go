// Package screens makes the terminal screens the termview benchmarks paint,
// for the package's Go benchmarks and for glbench alike, so that both
// measure the same frames.
package screens

import (
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Busy returns a cols×rows screen with every cell written and the colour
// changing every few letters: words of 3–9 letters in ANSI, 256-palette
// and truecolor foregrounds, some bold, some on a coloured background.
// seed changes every word, so two seeds differ on every row.
func Busy(cols, rows, seed int) *vt.Snapshot {
	term := vt.New(cols, rows)
	var b strings.Builder
	for y := range rows {
		fmt.Fprintf(&b, "\x1b[%d;1H", y+1)
		x := 0
		for i := 0; x < cols; i++ {
			k := seed*7 + y*31 + i*13
			n := min(3+k%7, cols-x)
			switch k % 5 {
			case 0:
				fmt.Fprintf(&b, "\x1b[%dm", 31+k%7)
			case 1:
				fmt.Fprintf(&b, "\x1b[38;5;%dm", k%256)
			case 2:
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", k%256, (k*3)%256, (k*7)%256)
			case 3:
				fmt.Fprintf(&b, "\x1b[1;%dm", 90+k%8)
			case 4:
				fmt.Fprintf(&b, "\x1b[48;5;%d;37m", 17+k%200)
			}
			for j := range n {
				b.WriteByte(byte('a' + (k+j)%26))
			}
			b.WriteString("\x1b[0m")
			x += n
			if x < cols {
				b.WriteByte(' ')
				x++
			}
		}
	}
	_, _ = term.Write([]byte(b.String()))
	return term.Snapshot()
}
