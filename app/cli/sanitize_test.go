package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeText(t *testing.T) {
	for _, tc := range []struct {
		name, in, cell, lines, block string
	}{
		{"plain", "a b", "a b", "a b", "  a b\n"},
		{"lines and tabs", "-x\n+\ty\n", "-x + y ", "-x\n+\ty\n", "  -x\n  +\ty\n"},
		{"escape", "a\x1b[2Jb", "a\uFFFD[2Jb", "a\uFFFD[2Jb", "  a\uFFFD[2Jb\n"},
		{"carriage return", "ok\rno", "ok no", "ok\uFFFDno", "  ok\uFFFDno\n"},
		{"bidi override", "a\u202eb", "a\uFFFDb", "a\uFFFDb", "  a\uFFFDb\n"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb", "a\uFFFDb", "  a\uFFFDb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cell(tc.in, 0); got != tc.cell {
				t.Errorf("cell(%q) = %q, want %q", tc.in, got, tc.cell)
			}
			if got := lines(tc.in); got != tc.lines {
				t.Errorf("lines(%q) = %q, want %q", tc.in, got, tc.lines)
			}
			if got := block(tc.in); got != tc.block {
				t.Errorf("block(%q) = %q, want %q", tc.in, got, tc.block)
			}
		})
	}
}

// A diff goes to a pipe or a file byte for byte; only a terminal gets it
// made safe.
func TestToTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if toTerminal(f) || toTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer taken for a terminal")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if !toTerminal(null) {
		t.Error("a character device not taken for a terminal")
	}
}

// What agent attach passes to the person's terminal, whole and split
// between two reads at every byte.
func TestEscapeFilter(t *testing.T) {
	const st = "\x1b\\"
	for _, tc := range []struct {
		name, in, want string
	}{
		// What a TUI needs passes as it is.
		{"text and UTF-8", "hello 日本 é £\r\n", "hello 日本 é £\r\n"},
		{"colours", "\x1b[1;38;2;255;0;0mred\x1b[0m", "\x1b[1;38;2;255;0;0mred\x1b[0m"},
		{"cursor and modes", "\x1b[?1049h\x1b[10;5H\x1b[2J\x1b[?25l\x1b7\x1b8\x1b(B\x1b[?2004h", "\x1b[?1049h\x1b[10;5H\x1b[2J\x1b[?25l\x1b7\x1b8\x1b(B\x1b[?2004h"},
		{"a control inside a sequence", "\x1b[1\n;31m", "\n\x1b[1;31m"},
		{"size report", "\x1b[18t", "\x1b[18t"},
		{"C1 CSI", "\xc2\x9b31mx", "\xc2\x9b31mx"},
		{"colour query", "\x1b]11;?\x07", "\x1b]11;?\x07"},
		{"palette set with ST", "\x1b]4;1;rgb:ff/00/00" + st, "\x1b]4;1;rgb:ff/00/00" + st},
		{"palette reset", "\x1b]104\x07", "\x1b]104\x07"},

		// What reaches beyond the screen does not.
		{"clipboard write", "a\x1b]52;c;aGVsbG8=\x07b", "ab"},
		{"clipboard write with ST", "a\x1b]52;c;aGVsbG8=" + st + "b", "ab"},
		{"clipboard write in C1 form", "a\xc2\x9d52;c;aGVsbG8=\xc2\x9cb", "ab"},
		{"hyperlink keeps its text", "\x1b]8;;https://example.com/x" + st + "click\x1b]8;;" + st, "click"},
		{"titles", "\x1b]0;t\x07\x1b]1;t\x07\x1b]2;t" + st + "x", "x"},
		{"title report", "\x1b[21t\x1b[20tx", "x"},
		{"title modes", "\x1b[>2t\x1b[>2Tx", "x"},
		{"notifications", "\x1b]9;done\x07\x1b]777;notify;a;b\x07\x1b]99;i=1;hi" + st + "x", "x"},
		{"files and fonts", "\x1b]1337;File=name=eA==:eA==\x07\x1b]50;font\x07x", "x"},
		{"tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07" + st + "after", "after"},
		{"kitty graphics", "\x1b_Gf=100,a=T;AAAA" + st + "x", "x"},
		{"DCS query", "\x1bP+q544e" + st + "x", "x"},
		{"PM and SOS", "\x1b^secret" + st + "\x1bXsos" + st + "x", "x"},
		{"DCS in C1 form", "\xc2\x90+q\xc2\x9cx", "x"},

		// Ends, cancels and limits.
		{"a string cut by a new sequence", "\x1b]0;title\x1b[31mred", "\x1b[31mred"},
		{"a string cancelled", "\x1b]52;c;eA==\x18visible", "visible"},
		{"BEL does not end a DCS", "\x1bPq\x07still\x07" + st + "x", "x"},
		{"an overlong colour", "\x1b]4;" + strings.Repeat("a", maxHeldOSC) + "\x07x", "x"},
		{"an overlong title report", "\x1b[" + strings.Repeat("0", maxHeldCSI) + "21tx", "x"},
		{"a stray ST", "a" + st + "b", "ab"},
		{"a stray C1 byte", "a\x9db\x90c", "a\uFFFDb\uFFFDc"},
		{"a C1 byte after a byte that cannot lead", "\xc0\x9dx", "\xc0\uFFFDx"},
		{"a broken character before an escape", "\xc2\x1b]0;t\x07\x9d", "\uFFFD\uFFFD"},
		// What is dropped cannot join what follows into a new sequence.
		{"ESC ESC before a string", "\x1b\x1b]0;t\x07]52;c;eA==\x07", "]52;c;eA==\x07"},
		{"ESC before a cancelled string", "\x1b\x1b]0;\x18]52;c;x\x07", "]52;c;x\x07"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			for cut := 0; cut <= len(in); cut++ {
				var out bytes.Buffer
				f := newEscapeFilter(&out)
				for _, part := range [][]byte{in[:cut], in[cut:]} {
					if n, err := f.Write(part); n != len(part) || err != nil {
						t.Fatalf("Write = %d, %v", n, err)
					}
				}
				if out.String() != tc.want {
					t.Fatalf("split at %d: %q, want %q", cut, out.String(), tc.want)
				}
			}
			var out bytes.Buffer
			f := newEscapeFilter(&out)
			for i := range in {
				f.Write(in[i : i+1])
			}
			if out.String() != tc.want {
				t.Errorf("a byte at a time: %q, want %q", out.String(), tc.want)
			}
		})
	}
}

// An escape that never ends holds a bounded amount, whatever its length.
func TestEscapeFilterHoldsLittle(t *testing.T) {
	for _, start := range []string{"\x1b]4;", "\x1b]52;c;", "\x1bP", "\x1b["} {
		var out bytes.Buffer
		f := newEscapeFilter(&out)
		f.Write([]byte(start))
		chunk := bytes.Repeat([]byte("a"), 4096)
		if start == "\x1b[" {
			chunk = bytes.Repeat([]byte("1"), 4096)
		}
		for range 1024 {
			f.Write(chunk)
		}
		if len(f.held) > maxHeldOSC {
			t.Errorf("%q then 4 MiB: %d bytes held", start, len(f.held))
		}
		if out.Len() != 0 {
			t.Errorf("%q then 4 MiB: %d bytes passed on", start, out.Len())
		}
	}
}
