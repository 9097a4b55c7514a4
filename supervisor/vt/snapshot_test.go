package vt

import (
	"fmt"
	"sync"
	"testing"
)

func TestSnapshot(t *testing.T) {
	term := newTerm(t, 6, 3, "\x1b]2;t\x07ab日\x1b[?25l\x1b[2;2H")
	s := term.Snapshot()
	if s.Cols != 6 || s.Rows != 3 || len(s.Lines) != 3 {
		t.Fatalf("snapshot is %dx%d with %d lines", s.Cols, s.Rows, len(s.Lines))
	}
	for y, line := range s.Lines {
		if len(line) != 6 {
			t.Errorf("line %d has %d cells", y, len(line))
		}
	}
	if s.Cursor != (Cursor{X: 1, Y: 1, Visible: false}) {
		t.Errorf("Cursor = %+v", s.Cursor)
	}
	if s.Title != "t" || s.AltScreen || s.Seq != term.Seq() {
		t.Errorf("snapshot = %+v", s)
	}
	if s.Lines[0][2].Rune != '日' || s.Lines[0][3].Width != 0 {
		t.Errorf("line 0 = %+v", s.Lines[0])
	}
	if got := s.Grapheme(s.Lines[0][2]) + s.Grapheme(s.Lines[0][3]) + s.Grapheme(s.Lines[0][4]); got != "日 " {
		t.Errorf("graphemes = %q", got)
	}
	// A deep copy: the terminal moving on does not change it.
	write(t, term, "\x1b[2J\x1b[?1049h")
	if s.Lines[0][0].Rune != 'a' {
		t.Error("the snapshot changed with the terminal")
	}
	// Nor does the painter writing to it change the terminal.
	s.Lines[1][0].Rune = 'Z'
	write(t, term, "\x1b[?1049l")
	if c := cell(term, 0, 1); c.Rune == 'Z' {
		t.Error("the snapshot shares cells with the terminal")
	}
}

func TestSnapshotIntoReuses(t *testing.T) {
	term := newTerm(t, 200, 50, "hello")
	var s Snapshot
	term.SnapshotInto(&s)
	allocs := testing.AllocsPerRun(50, func() { term.SnapshotInto(&s) })
	if allocs != 0 {
		t.Errorf("SnapshotInto allocates %v times", allocs)
	}
	term.Resize(100, 20)
	term.SnapshotInto(&s)
	if s.Cols != 100 || s.Rows != 20 || len(s.Lines) != 20 || len(s.Lines[19]) != 100 {
		t.Errorf("after resize: %dx%d, %d lines", s.Cols, s.Rows, len(s.Lines))
	}
	term.Resize(300, 60)
	term.SnapshotInto(&s)
	if len(s.Lines) != 60 || len(s.Lines[59]) != 300 || s.Lines[0][0].Rune != 'h' {
		t.Errorf("after growing: %d lines", len(s.Lines))
	}
}

// TestSeq checks that the generation moves with visible changes only.
func TestSeq(t *testing.T) {
	term := New(20, 5, WithReply(func([]byte) {}))
	seq := term.Seq()
	step := func(input string, changes bool) {
		t.Helper()
		write(t, term, input)
		now := term.Seq()
		if changed := now != seq; changed != changes {
			t.Errorf("after %q: Seq changed = %v; want %v", input, changed, changes)
		}
		seq = now
	}
	step("hello", true)
	step("", false)
	step("\x1b[6n\x1b[c\x1b[5n", false) // queries
	step("\x1b[?9999h\x1b[>5Q\x07\x1bP$q\x1b\\", false)
	step("\x1b[H", true)
	step("\x1b]2;title\x07", true)
	step("\x1b]2;title\x07", false)
	step("\x1b[31m", true) // the cursor is drawn in the pen colour by some painters
	step("\x1b[?25l", true)
	step("\xe6\x97", false) // half a character
	step("\xa5", true)
	term.Resize(30, 5)
	if term.Seq() == seq {
		t.Error("Resize did not change Seq")
	}
}

// TestConcurrentUse runs a writer against readers under the race
// detector: the terminal is meant to be shared that way.
func TestConcurrentUse(t *testing.T) {
	term := New(80, 24)
	stream := BenchStream(256 << 10)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for p := stream; len(p) > 0; {
			n := min(len(p), 4096)
			term.Write(p[:n])
			p = p[n:]
		}
		term.Resize(100, 30)
	}()
	var s Snapshot
	for range 200 {
		term.SnapshotInto(&s)
		_ = term.Text()
		_ = term.Modes()
		_ = term.Seq()
		if n := term.ScrollbackLen(); n > 0 {
			_ = term.ScrollbackLine(n - 1)
		}
		for _, line := range s.Lines {
			for _, c := range line {
				_ = s.Grapheme(c)
			}
		}
	}
	wg.Wait()
	checkInvariants(t, term)
}

func ExampleTerminal() {
	term := New(20, 3)
	fmt.Fprint(term, "\x1b[1;32mok\x1b[m build\r\n日本語 text")
	fmt.Println(term.Text())
	s := term.Snapshot()
	fmt.Println(s.Lines[0][0].Attr&Bold != 0, s.Cursor.X, s.Cursor.Y)
	// Output:
	// ok build
	// 日本語 text
	//
	// true 11 1
}
