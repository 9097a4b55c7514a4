package asciicast

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// start is the Timestamp of every test recording; never modified.
var start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: start} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = start.Add(d)
}

func testHeader() Header {
	return Header{Width: 80, Height: 24, Timestamp: start}
}

// record runs fn on a new Writer, closes it and returns the file.
func record(t testing.TB, h Header, clock func() time.Time, fn func(w *Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h, clock)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	fn(w)
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}

// readAll reads every event of file; err is what ended the reading
// (nil for io.EOF).
func readAll(t testing.TB, file []byte) (Header, []Event, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var evs []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return r.Header(), evs, nil
		}
		if err != nil {
			return r.Header(), evs, err
		}
		evs = append(evs, ev)
	}
}

// dataOf concatenates the data of the events of type typ.
func dataOf(evs []Event, typ EventType) string {
	var sb strings.Builder
	for _, ev := range evs {
		if ev.Type == typ {
			sb.WriteString(ev.Data)
		}
	}
	return sb.String()
}

// checkFormat checks file against the rules of asciicast v2 with
// encoding/json as the judge, independently of Reader: the first line is a
// JSON object with version 2 and a positive width and height; every other
// line is a JSON array [number, string, string] with a non-negative,
// non-decreasing time; every line ends with '\n'.
func checkFormat(t testing.TB, file []byte) {
	t.Helper()
	if len(file) == 0 || file[len(file)-1] != '\n' {
		t.Fatalf("file does not end with a newline: %q", tail(file))
	}
	lines := bytes.Split(file[:len(file)-1], []byte("\n"))
	var hdr map[string]any
	if err := json.Unmarshal(lines[0], &hdr); err != nil {
		t.Fatalf("line 1 is not a JSON object: %v: %q", err, lines[0])
	}
	if hdr["version"] != float64(2) {
		t.Fatalf("line 1: version = %v, want 2", hdr["version"])
	}
	for _, k := range []string{"width", "height"} {
		if n, ok := hdr[k].(float64); !ok || n <= 0 {
			t.Fatalf("line 1: %s = %v, want a positive number", k, hdr[k])
		}
	}
	last := -1.0
	for i, line := range lines[1:] {
		var ev []any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("line %d is not a JSON array: %v: %q", i+2, err, line)
		}
		if len(ev) != 3 {
			t.Fatalf("line %d has %d elements, want 3: %q", i+2, len(ev), line)
		}
		secs, ok := ev[0].(float64)
		if !ok || secs < 0 || secs < last {
			t.Fatalf("line %d: time %v is not a number >= %v", i+2, ev[0], last)
		}
		last = secs
		for j := 1; j < 3; j++ {
			if _, ok := ev[j].(string); !ok {
				t.Fatalf("line %d: element %d is %T, want a string", i+2, j, ev[j])
			}
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 40 {
		return b[len(b)-40:]
	}
	return b
}

func mustRead(t testing.TB, file []byte) (Header, []Event) {
	t.Helper()
	h, evs, err := readAll(t, file)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	return h, evs
}
