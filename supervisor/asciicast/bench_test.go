package asciicast

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
)

// terminalText returns n bytes of what an agent's terminal shows: colour
// escapes, ASCII, CJK and box drawing, cut without regard for runes.
func terminalText(n int) []byte {
	line := []byte("\x1b[1;32m✓\x1b[0m build step 12 完成了测试 │ \"ok\" \\ done\x1b[K\r\n" +
		"func main() {\n\tfmt.Println(\"hello, 世界\")\n}\r\n")
	return bytes.Repeat(line, n/len(line)+1)[:n]
}

// BenchmarkOutput measures Output on 32 KiB chunks, the largest a PTY read
// loop hands over, of two kinds of output: dense with escapes, accents and
// CJK, and the flood of coloured lines the PTY benchmark prints.
func BenchmarkOutput(b *testing.B) {
	const chunkSize = 32 << 10
	for _, bc := range []struct {
		name string
		text []byte
	}{
		{"dense", terminalText(4 * chunkSize)},
		{"flood", flood.AsTerminalOutput(4 * chunkSize)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w, err := NewWriter(io.Discard, testHeader(), time.Now)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(chunkSize)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				off := i % 4 * chunkSize
				if err := w.Output(bc.text[off : off+chunkSize]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkNext measures reading back recorded output, as a replay that
// seeks does.
func BenchmarkNext(b *testing.B) {
	const chunkSize = 32 << 10
	text := terminalText(64 * chunkSize)
	var file bytes.Buffer
	w, err := NewWriter(&file, testHeader(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	for off := 0; off < len(text); off += chunkSize {
		if err := w.Output(text[off : off+chunkSize]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(file.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
