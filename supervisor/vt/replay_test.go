package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayMatchesTmux replays output recorded from real programs — ls
// and git log in colour, cat of mixed-width text, readline editing across
// a wrapped line, vim, less, a curses program, scroll-region sequences,
// and the sign-in screens of the Codex and Gemini CLI agents — and
// requires the screen and cursor tmux showed for the same bytes.
//
// Each recording in testdata/replay is NAME.raw, the bytes the program
// wrote to its pane (tmux pipe-pane, after a clear, TERM=tmux-256color);
// NAME.screen, tmux's capture-pane of the result with trailing blanks
// trimmed; and NAME.size, "cols rows cursorX cursorY alternate".
func TestReplayMatchesTmux(t *testing.T) {
	raws, err := filepath.Glob("testdata/replay/*.raw")
	if err != nil || len(raws) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	for _, raw := range raws {
		name := strings.TrimSuffix(filepath.Base(raw), ".raw")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(raw)
			if err != nil {
				t.Fatal(err)
			}
			screen, err := os.ReadFile(strings.TrimSuffix(raw, ".raw") + ".screen")
			if err != nil {
				t.Fatal(err)
			}
			size, err := os.ReadFile(strings.TrimSuffix(raw, ".raw") + ".size")
			if err != nil {
				t.Fatal(err)
			}
			var cols, rows, cx, cy, alt int
			if _, err := fmt.Sscan(string(size), &cols, &rows, &cx, &cy, &alt); err != nil {
				t.Fatalf("%s.size: %v", name, err)
			}
			// Whole, and one byte at a time: the PTY may cut anywhere.
			for _, chunk := range []int{len(data), 1} {
				term := New(cols, rows)
				for p := data; len(p) > 0; {
					n := min(chunk, len(p))
					term.Write(p[:n])
					p = p[n:]
				}
				got := strings.Split(term.Text(), "\n")
				want := strings.Split(strings.TrimRight(string(screen), "\n"), "\n")
				for len(got) > len(want) && got[len(got)-1] == "" {
					got = got[:len(got)-1]
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("written %d bytes at a time, screen:\n%s\ntmux:\n%s", chunk, quoteLines(strings.Join(got, "\n")), quoteLines(strings.Join(want, "\n")))
				}
				s := term.Snapshot()
				if s.Cursor.X != cx || s.Cursor.Y != cy || s.AltScreen != (alt == 1) {
					t.Errorf("cursor %d,%d alt %v; tmux %d,%d alt %v", s.Cursor.X, s.Cursor.Y, s.AltScreen, cx, cy, alt == 1)
				}
				checkInvariants(t, term)
			}
		})
	}
}
