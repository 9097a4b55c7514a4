package cli

import (
	"bytes"
	"os"
	"path/filepath"
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
