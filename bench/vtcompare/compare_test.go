package vtcompare

import (
	"io"
	"strings"
	"testing"

	xvt "github.com/charmbracelet/x/vt"
	"github.com/hinshun/vt10x"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

const (
	cols, rows = 200, 50
	// chunk is what one PTY read hands the supervisor.
	chunk = 32 << 10
	// streamSize is how much output each benchmark iteration feeds.
	streamSize = 8 << 20
)

// feed writes stream to w in chunk-sized pieces, as the supervisor does.
func feed(b *testing.B, w io.Writer, stream []byte) {
	for p := stream; len(p) > 0; {
		n := min(len(p), chunk)
		if _, err := w.Write(p[:n]); err != nil {
			b.Fatalf("write: %v", err)
		}
		p = p[n:]
	}
}

// BenchmarkCompare feeds the build-log stream of vt.BenchStream to each
// emulator at 200×50 with a 10,000-line scrollback where there is one.
// Each emulator is created once and fed b.N times, so what is measured is
// the steady state with a full scrollback.
func BenchmarkCompare(b *testing.B) {
	stream := vt.BenchStream(streamSize)
	b.Run("switchboard-vt", func(b *testing.B) {
		term := vt.New(cols, rows, vt.WithScrollback(10000))
		b.SetBytes(int64(len(stream)))
		b.ResetTimer()
		for range b.N {
			feed(b, term, stream)
		}
	})
	b.Run("charmbracelet-x-vt", func(b *testing.B) {
		em := xvt.NewEmulator(cols, rows)
		em.SetScrollbackSize(10000)
		// Replies go to a pipe that must be drained or Write blocks.
		go io.Copy(io.Discard, em)
		defer em.Close()
		b.SetBytes(int64(len(stream)))
		b.ResetTimer()
		for range b.N {
			feed(b, em, stream)
		}
	})
	b.Run("hinshun-vt10x", func(b *testing.B) {
		term := vt10x.New(vt10x.WithSize(cols, rows))
		b.SetBytes(int64(len(stream)))
		b.ResetTimer()
		for range b.N {
			feed(b, term, stream)
		}
	})
}

// TestWideColumnsMatchXVT prints lines mixing narrow and wide characters
// and requires every character in the same column in our emulator and in
// x/vt, and the cursor in the same place.
func TestWideColumnsMatchXVT(t *testing.T) {
	const w, h = 20, 6
	input := "a日本語b\r\n" +
		"\x1b[32mエラー\x1b[0m: 変数 x\r\n" +
		"012345678901234567日\r\n" + // 日 takes exactly the last two columns
		"😀x🎉y\r\n" +
		"±§─│┌ narrow\r\n" +
		"日本\x1b[1;2Hz" // z overwrites the right half of 日
	ours, theirs := both(t, w, h, input)
	snap := ours.Snapshot()
	for y := range h {
		if a, b := ourRow(snap, y), theirRow(theirs, w, y); a != b {
			t.Errorf("row %d:\n ours  %q\n x/vt  %q", y, a, b)
		}
		for x := range w {
			c, tc := snap.Lines[y][x], theirs.CellAt(x, y)
			if tc != nil && (c.Width == 2) != (tc.Width == 2) {
				t.Errorf("row %d column %d: ours %q width %d, x/vt %q width %d", y, x, c.Rune, c.Width, tc.Content, tc.Width)
			}
		}
	}
	if p := theirs.CursorPosition(); p.X != snap.Cursor.X || p.Y != snap.Cursor.Y {
		t.Errorf("cursor: ours %d,%d, x/vt %d,%d", snap.Cursor.X, snap.Cursor.Y, p.X, p.Y)
	}
}

// TestWideAtTheEdge records where the two differ: a wide character that
// reaches the last column. xterm (and we) wrap it to the next line; x/vt
// v0.1.0 drops it.
func TestWideAtTheEdge(t *testing.T) {
	ours, theirs := both(t, 20, 3, "0123456789012345678日X")
	if got := ourRow(ours.Snapshot(), 1); got != "日X                 " {
		t.Errorf("ours: row 1 = %q; want the wide character wrapped", got)
	}
	if got := theirRow(theirs, 20, 1); got != "X                   " {
		t.Logf("x/vt now gives row 1 = %q; it used to drop the character", got)
	}
}

// both returns our terminal and an x/vt emulator fed the same input.
func both(t *testing.T, w, h int, input string) (*vt.Terminal, *xvt.Emulator) {
	t.Helper()
	ours := vt.New(w, h)
	ours.Write([]byte(input))
	theirs := xvt.NewEmulator(w, h)
	go io.Copy(io.Discard, theirs)
	t.Cleanup(func() { theirs.Close() })
	theirs.Write([]byte(input))
	return ours, theirs
}

// ourRow renders row y with each character once and blanks as spaces.
func ourRow(s *vt.Snapshot, y int) string {
	var b strings.Builder
	for _, c := range s.Lines[y] {
		b.WriteString(s.Grapheme(c))
	}
	return b.String()
}

// theirRow renders x/vt's row y the same way.
func theirRow(e *xvt.Emulator, w, y int) string {
	var b strings.Builder
	for x := range w {
		switch c := e.CellAt(x, y); {
		case c == nil:
			b.WriteString(" ")
		case c.Width == 0:
			// The right half of a wide character.
		case c.Content == "":
			b.WriteString(" ")
		default:
			b.WriteString(c.Content)
		}
	}
	return b.String()
}
