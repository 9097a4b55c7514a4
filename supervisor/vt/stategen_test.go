package vt

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// genOutput returns n random pieces of program output for a cols×rows
// terminal: text of every width (ASCII runs long enough to wrap, CJK at
// the edge, combining marks, line drawing), SGR in all its forms, cursor
// moves, scroll regions and origin mode, both alternate screens, erasing,
// inserting and deleting, scrolling, saved cursors, tab stops, charsets,
// every mode Modes has, titles, REP, and the odd reset. It is meant to
// reach the corners of the terminal's state, not to look like a program.
func genOutput(rng *rand.Rand, n, cols, rows int) []byte {
	var b strings.Builder
	num := func(hi int) int { return 1 + rng.IntN(hi) }
	words := []string{
		"a", "hello", "ls -la", "x_y~z", "日本語", "🙂", "e\u0301", "a\u0301\u0302",
		"\u200d", "\ufe0f", "é", "│", "─┼─", "lqk", "  ", " ", "\t", "ｱ",
	}
	for range n {
		switch k := rng.IntN(100); {
		case k < 22:
			b.WriteString(words[rng.IntN(len(words))])
		case k < 28:
			// A run that reaches or passes the last column.
			s := strings.Repeat(string(rune('A'+rng.IntN(26))), num(2*cols))
			b.WriteString(s)
		case k < 33:
			b.WriteString([]string{"\r\n", "\n", "\r", "\b", "\x0b", "\x1bD", "\x1bE", "\x1bM"}[rng.IntN(8)])
		case k < 43:
			b.WriteString(genSGR(rng))
		case k < 50:
			fmt.Fprintf(&b, "\x1b[%d;%dH", num(rows+2), num(cols+2))
		case k < 55:
			fmt.Fprintf(&b, "\x1b[%d%c", num(4), "ABCDEFGabde`"[rng.IntN(12)])
		case k < 59:
			top := num(rows)
			fmt.Fprintf(&b, "\x1b[%d;%dr", top, top+rng.IntN(rows))
		case k < 60:
			b.WriteString("\x1b[r")
		case k < 62:
			fmt.Fprintf(&b, "\x1b[?6%c", "hl"[rng.IntN(2)])
		case k < 66:
			fmt.Fprintf(&b, "\x1b[?%d%c", []int{47, 1047, 1048, 1049}[rng.IntN(4)], "hl"[rng.IntN(2)])
		case k < 74:
			fmt.Fprintf(&b, "\x1b[%d%c", rng.IntN(4), "JKJK@PXLMST"[rng.IntN(11)])
		case k < 77:
			b.WriteString([]string{"\x1b7", "\x1b8", "\x1b[s", "\x1b[u"}[rng.IntN(4)])
		case k < 80:
			b.WriteString([]string{"\x1bH", "\x1b[g", "\x1b[3g", "\x1b[2I", "\x1b[Z"}[rng.IntN(5)])
		case k < 83:
			b.WriteString([]string{"\x1b(0", "\x1b(B", "\x1b)0", "\x1b)B", "\x0e", "\x0f"}[rng.IntN(6)])
		case k < 89:
			modes := []int{1, 5, 7, 7, 12, 25, 9, 1000, 1002, 1003, 1004, 1006, 2004, 2026}
			fmt.Fprintf(&b, "\x1b[?%d%c", modes[rng.IntN(len(modes))], "hl"[rng.IntN(2)])
		case k < 91:
			fmt.Fprintf(&b, "\x1b[%d%c", []int{4, 20}[rng.IntN(2)], "hl"[rng.IntN(2)])
		case k < 93:
			b.WriteString([]string{"\x1b=", "\x1b>", fmt.Sprintf("\x1b[%d q", rng.IntN(7))}[rng.IntN(3)])
		case k < 94:
			fmt.Fprintf(&b, "\x1b]%d;title %d\x07", []int{0, 2}[rng.IntN(2)], rng.IntN(100))
		case k < 96:
			fmt.Fprintf(&b, "\x1b[%db", num(3))
		case k < 97:
			b.WriteString([]string{"\x1b[6n", "\x1b[?6n", "\x1b[?7$p", "\x1b[?6$p", "\x1b[4$p"}[rng.IntN(5)])
		case k < 98:
			b.WriteString([]string{"\x1b#8", "\x1b[!p", "\x1bc"}[rng.IntN(3)])
		default:
			// Sequences a Write may be cut inside of.
			b.WriteString([]string{
				"\x1b[38:2::10:20:30m", "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34m",
				"\x1b]0;long title with ünïcode\x1b\\", "\x1bPq#0;2;0;0;0\x1b\\", "\x1b[?1;2;3$y", "\x1b(0", "\x1b[>0;1c",
			}[rng.IntN(7)])
		}
	}
	return []byte(b.String())
}

// genSGR returns one SGR sequence with a few random parameters.
func genSGR(rng *rand.Rand) string {
	params := []string{
		"0", "1", "2", "3", "4", "4:0", "4:3", "5", "7", "8", "9", "21", "22", "23", "24",
		"25", "27", "28", "29", "39", "49",
	}
	var ps []string
	for range 1 + rng.IntN(4) {
		switch rng.IntN(6) {
		case 0:
			ps = append(ps, fmt.Sprint(30+rng.IntN(8)), fmt.Sprint(40+rng.IntN(8)))
		case 1:
			ps = append(ps, fmt.Sprint(90+rng.IntN(8)), fmt.Sprint(100+rng.IntN(8)))
		case 2:
			ps = append(ps, fmt.Sprintf("%d;5;%d", 38+10*rng.IntN(2), rng.IntN(256)))
		case 3:
			ps = append(ps, fmt.Sprintf("%d;2;%d;%d;%d", 38+10*rng.IntN(2), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
		default:
			ps = append(ps, params[rng.IntN(len(params))])
		}
	}
	return "\x1b[" + strings.Join(ps, ";") + "m"
}
