package vt

import (
	"bytes"
	"fmt"
	"testing"
)

// benchChunk is how much a PTY read hands the supervisor at a time.
const benchChunk = 32 << 10

// benchFeed writes stream to a fresh 200×50 terminal in benchChunk pieces,
// b.N times, reporting throughput.
func benchFeed(b *testing.B, stream []byte) {
	b.Helper()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	term := New(200, 50, WithScrollback(10000))
	b.ResetTimer()
	for range b.N {
		for p := stream; len(p) > 0; {
			n := min(len(p), benchChunk)
			term.Write(p[:n])
			p = p[n:]
		}
	}
}

// BenchmarkWrite measures the three kinds of output an agent produces:
// a coloured build log, a plain `cat` of a file, and a full-screen TUI
// repainting itself on the alternate screen.
func BenchmarkWrite(b *testing.B) {
	b.Run("compiler", func(b *testing.B) { benchFeed(b, BenchStream(8<<20)) })
	b.Run("cat", func(b *testing.B) { benchFeed(b, catStream(8<<20)) })
	b.Run("tui", func(b *testing.B) { benchFeed(b, tuiStream(8<<20)) })
}

// catStream is plain ASCII text with LF line ends, like `cat` of a source
// file (the PTY's ONLCR turns them into CRLF, so they arrive that way).
func catStream(size int) []byte {
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		fmt.Fprintf(&buf, "%6d\tfunc (t *Terminal) handle%d(p []byte) (int, error) { return len(p), nil } // plain text\r\n", i, i)
		if i%5 == 0 {
			buf.WriteString("\r\n")
		}
	}
	return buf.Bytes()
}

// tuiStream is a full-screen TUI repainting every row of a 200×50 screen
// on the alternate screen: CUP to each row, coloured spans, a box border
// drawn with DEC line drawing, the cursor hidden during the repaint.
func tuiStream(size int) []byte {
	var buf bytes.Buffer
	buf.WriteString("\x1b[?1049h\x1b[?25l")
	for frame := 0; buf.Len() < size; frame++ {
		buf.WriteString("\x1b[?2026h\x1b[H")
		for row := 1; row <= 50; row++ {
			fmt.Fprintf(&buf, "\x1b[%d;1H", row)
			switch row {
			case 1, 50:
				buf.WriteString("\x1b(0\x1b[38;5;240ml")
				buf.Write(bytes.Repeat([]byte{'q'}, 198))
				buf.WriteString("k\x1b(B\x1b[0m")
			default:
				fmt.Fprintf(&buf, "\x1b[38;5;240m│\x1b[0m \x1b[1;38;2;200;120;50m%3d\x1b[0m ", row)
				fmt.Fprintf(&buf, "\x1b[48;5;%dm frame %d row %d \x1b[0m ", 16+row, frame, row)
				buf.WriteString("\x1b[32mtool call: Read(file_path=\"supervisor/vt/print.go\") → 120 lines 読み込み\x1b[0m")
				buf.WriteString("\x1b[K\x1b[200G\x1b[38;5;240m│\x1b[0m")
			}
		}
		buf.WriteString("\x1b[?2026l")
	}
	buf.WriteString("\x1b[?25h\x1b[?1049l")
	return buf.Bytes()
}

// BenchmarkSnapshot measures what a painter pays per frame for a copy of a
// full 200×50 screen.
func BenchmarkSnapshot(b *testing.B) {
	term := New(200, 50)
	term.Write(tuiStream(64 << 10))
	b.Run("into", func(b *testing.B) {
		var s Snapshot
		b.ReportAllocs()
		for range b.N {
			term.SnapshotInto(&s)
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = term.Snapshot()
		}
	})
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = term.Text()
		}
	})
}
