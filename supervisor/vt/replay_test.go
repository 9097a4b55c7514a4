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
	for _, rec := range recordings(t) {
		t.Run(rec.name, func(t *testing.T) {
			data := rec.data
			screen, err := os.ReadFile(rec.base + ".screen")
			if err != nil {
				t.Fatal(err)
			}
			cols, rows, cx, cy, alt := rec.cols, rec.rows, rec.cx, rec.cy, rec.alt
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

// recording is one of testdata/replay's recordings: its bytes and its
// NAME.size.
type recording struct {
	name, base string
	data       []byte
	// cols, rows is the pane's size; cx, cy and alt are where tmux
	// showed the cursor and whether on the alternate screen (1).
	cols, rows, cx, cy, alt int
}

// recordings reads the recordings in testdata/replay.
func recordings(t *testing.T) []recording {
	t.Helper()
	raws, err := filepath.Glob("testdata/replay/*.raw")
	if err != nil || len(raws) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	var recs []recording
	for _, raw := range raws {
		rec := recording{base: strings.TrimSuffix(raw, ".raw")}
		rec.name = filepath.Base(rec.base)
		if rec.data, err = os.ReadFile(raw); err != nil {
			t.Fatal(err)
		}
		size, err := os.ReadFile(rec.base + ".size")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscan(string(size), &rec.cols, &rec.rows, &rec.cx, &rec.cy, &rec.alt); err != nil {
			t.Fatalf("%s.size: %v", rec.name, err)
		}
		recs = append(recs, rec)
	}
	return recs
}
