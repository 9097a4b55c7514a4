package asciicast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLines returns the lines of file after the header.
func eventLines(file []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	return lines[1:]
}

func TestOutputEscapes(t *testing.T) {
	var allControls strings.Builder
	var allControlsJSON strings.Builder
	for c := range 0x20 {
		allControls.WriteByte(byte(c))
		switch c {
		case '\n':
			allControlsJSON.WriteString(`\n`)
		case '\r':
			allControlsJSON.WriteString(`\r`)
		case '\t':
			allControlsJSON.WriteString(`\t`)
		default:
			fmt.Fprintf(&allControlsJSON, `\u%04x`, c)
		}
	}
	tests := []struct {
		name, in, json string
	}{
		{"plain", "hello, world", `hello, world`},
		{"ANSI colour", "\x1b[1;31mred\x1b[0m", `\u001b[1;31mred\u001b[0m`},
		{"CRLF and tab", "a\tb\r\n", `a\tb\r\n`},
		{"NUL", "\x00", `\u0000`},
		{"DEL stays raw", "\x7f", "\x7f"},
		{"quote and backslash", `say "C:\dir"`, `say \"C:\\dir\"`},
		{"all C0 controls", allControls.String(), allControlsJSON.String()},
		{"line and paragraph separators", "\u2028\u2029", "\u2028\u2029"},
		{"CJK and emoji", "完成 ✓ 😀", "完成 ✓ 😀"},
		{"a literal U+FFFD", "\uFFFD", "\uFFFD"},
		{"slash and HTML characters", "</b> & <", "</b> & <"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := record(t, testHeader(), newFakeClock().now, func(w *Writer) {
				if err := w.Output([]byte(tt.in)); err != nil {
					t.Fatal(err)
				}
			})
			checkFormat(t, file)
			want := `[0.000000, "o", "` + tt.json + `"]`
			if got := eventLines(file); len(got) != 1 || got[0] != want {
				t.Fatalf("event lines = %q, want [%q]", got, want)
			}
			var ev []any
			if err := json.Unmarshal([]byte(eventLines(file)[0]), &ev); err != nil || ev[2] != tt.in {
				t.Errorf("encoding/json reads %q (err %v), want %q", ev[2], err, tt.in)
			}
			if _, evs := mustRead(t, file); dataOf(evs, TypeOutput) != tt.in {
				t.Errorf("Reader reads %q, want %q", dataOf(evs, TypeOutput), tt.in)
			}
		})
	}
}

func TestOutputUTF8AcrossCalls(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		name   string
		chunks []string
		// events is the data of each "o" event, including the one Close
		// writes for a sequence left incomplete.
		events []string
	}{
		{"rune split in two", []string{"a\xe4", "\xb8\xadb"}, []string{"a", "中b"}},
		{"rune split in three", []string{"\xe4", "\xb8", "\xad"}, []string{"中"}},
		{"emoji split", []string{"\xf0\x9f", "\x98", "\x80x"}, []string{"😀x"}},
		{"split then more runes", []string{"\xf0\x9f", "\x98\x80中"}, []string{"😀中"}},
		{"invalid byte", []string{"a\xffb"}, []string{"a" + r + "b"}},
		{"each invalid byte once", []string{"\xff\xfe\x80"}, []string{r + r + r}},
		{"cut sequence then ASCII", []string{"\xe4\xb8A"}, []string{r + r + "A"}},
		{"carried prefix proves invalid", []string{"\xe4", "A"}, []string{r + "A"}},
		{"carried two bytes prove invalid", []string{"\xe4\xb8", "\xff"}, []string{r + r + r}},
		{"carried prefix then a whole rune", []string{"\xf0\x9f", "\xe4\xb8\xad"}, []string{r + r + "中"}},
		{"carried prefix restarts a sequence", []string{"\xe4", "\xe4\xb8", "\xad"}, []string{r, "中"}},
		{"surrogate encoded in UTF-8", []string{"\xed\xa0\x80"}, []string{r + r + r}},
		{"overlong slash", []string{"\xc0\xaf"}, []string{r + r}},
		{"beyond U+10FFFF", []string{"\xf4\x90\x80\x80"}, []string{r + r + r + r}},
		{"dangling at Close", []string{"ok\xf0\x9f\x98"}, []string{"ok", r + r + r}},
		{"dangling over calls at Close", []string{"\xf0", "\x9f", "\x98"}, []string{r + r + r}},
		{"empty chunks", []string{"", "a", ""}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all []byte
			file := record(t, testHeader(), newFakeClock().now, func(w *Writer) {
				for _, c := range tt.chunks {
					all = append(all, c...)
					if err := w.Output([]byte(c)); err != nil {
						t.Fatal(err)
					}
				}
			})
			checkFormat(t, file)
			_, evs := mustRead(t, file)
			var got []string
			for _, ev := range evs {
				got = append(got, ev.Data)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.events) || len(got) != len(tt.events) {
				t.Errorf("events %q, want %q", got, tt.events)
			}
			// The documented rule: the stream decoded as a whole.
			if want := string([]rune(string(all))); dataOf(evs, TypeOutput) != want {
				t.Errorf("output %q, want %q", dataOf(evs, TypeOutput), want)
			}
		})
	}
}

func TestFlushKeepsCarry(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader(), newFakeClock().now)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Output([]byte("\xe4\xb8")); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(eventLines(buf.Bytes())); n != 0 {
		t.Fatalf("Flush wrote %d events for an incomplete rune, want 0", n)
	}
	if err := w.Output([]byte("\xad")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := eventLines(buf.Bytes()), []string{`[0.000000, "o", "中"]`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestHeader(t *testing.T) {
	stamp := time.Date(2025, 3, 1, 12, 0, 0, 750_000_000, time.UTC)
	tests := []struct {
		name string
		h    Header
		// json is the header line.
		json string
		// want is what Reader returns.
		want Header
	}{
		{
			name: "size only",
			h:    Header{Width: 80, Height: 24, Timestamp: stamp},
			json: `{"version":2,"width":80,"height":24,"timestamp":1740830400}`,
			want: Header{Width: 80, Height: 24, Timestamp: time.Unix(1740830400, 0)},
		},
		{
			name: "every field",
			h: Header{
				Width: 132, Height: 43, Timestamp: stamp,
				Title:   `claude <fix "bug"> & test`,
				Env:     map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/zsh"},
				Command: "claude --resume",
			},
			json: `{"version":2,"width":132,"height":43,"timestamp":1740830400,"command":"claude --resume",` +
				`"title":"claude <fix \"bug\"> & test","env":{"SHELL":"/bin/zsh","TERM":"xterm-256color"}}`,
			want: Header{
				Width: 132, Height: 43, Timestamp: time.Unix(1740830400, 0),
				Title:   `claude <fix "bug"> & test`,
				Env:     map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/zsh"},
				Command: "claude --resume",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := record(t, tt.h, newFakeClock().now, func(*Writer) {})
			checkFormat(t, file)
			if got := strings.TrimSuffix(string(file), "\n"); got != tt.json {
				t.Errorf("header line\n%s\nwant\n%s", got, tt.json)
			}
			got, _ := mustRead(t, file)
			if !got.Timestamp.Equal(tt.want.Timestamp) {
				t.Errorf("Timestamp %v, want %v", got.Timestamp, tt.want.Timestamp)
			}
			got.Timestamp, tt.want.Timestamp = time.Time{}, time.Time{}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("header %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHeaderZeroTimestampUsesClock(t *testing.T) {
	clock := newFakeClock()
	clock.set(90 * time.Second)
	file := record(t, Header{Width: 80, Height: 24}, clock.now, func(w *Writer) {
		clock.set(91 * time.Second)
		if err := w.Output([]byte("x")); err != nil {
			t.Fatal(err)
		}
	})
	h, evs := mustRead(t, file)
	if want := start.Add(90 * time.Second); !h.Timestamp.Equal(want) {
		t.Errorf("Timestamp %v, want %v", h.Timestamp, want)
	}
	if evs[0].Time != time.Second {
		t.Errorf("event time %v, want 1s", evs[0].Time)
	}
}

func TestNewWriterRejectsBadSize(t *testing.T) {
	for _, h := range []Header{{Width: 0, Height: 24}, {Width: 80, Height: -1}} {
		if _, err := NewWriter(&bytes.Buffer{}, h, nil); err == nil {
			t.Errorf("NewWriter(%dx%d) succeeded", h.Width, h.Height)
		}
	}
}

func TestTimeIsMonotonic(t *testing.T) {
	tests := []struct {
		clock time.Duration
		line  string
		want  time.Duration
	}{
		{-2 * time.Second, "0.000000", 0}, // clock before the header's Timestamp
		{1500 * time.Millisecond, "1.500000", 1500 * time.Millisecond},
		{1200 * time.Millisecond, "1.500000", 1500 * time.Millisecond}, // steps back
		{1500*time.Millisecond + 1234567*time.Nanosecond, "1.501234", 1501234 * time.Microsecond},
		{time.Hour + 7*time.Microsecond, "3600.000007", time.Hour + 7*time.Microsecond},
		{time.Minute, "3600.000007", time.Hour + 7*time.Microsecond}, // steps far back
	}
	clock := newFakeClock()
	file := record(t, testHeader(), clock.now, func(w *Writer) {
		for _, tt := range tests {
			clock.set(tt.clock)
			if err := w.Output([]byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	})
	checkFormat(t, file)
	lines := eventLines(file)
	_, evs := mustRead(t, file)
	for i, tt := range tests {
		if want := `[` + tt.line + `, "o", "x"]`; lines[i] != want {
			t.Errorf("event %d: line %s, want %s", i, lines[i], want)
		}
		if evs[i].Time != tt.want {
			t.Errorf("event %d: Time %v, want %v", i, evs[i].Time, tt.want)
		}
	}
}

func TestOtherEvents(t *testing.T) {
	clock := newFakeClock()
	file := record(t, testHeader(), clock.now, func(w *Writer) {
		steps := []func() error{
			func() error { return w.Resize(120, 40) },
			func() error { return w.Input([]byte("ls\r")) },
			func() error { return w.Input([]byte("\xe2\x82")) }, // € split
			func() error { return w.Input([]byte("\xac\x1b[A")) },
			func() error { return w.Marker("tests \"green\"") },
			func() error { return w.Marker("") },
			func() error { return w.Marker("bad \xff") },
			func() error { return w.Output([]byte("\xe4")) }, // carried, then Close
			func() error { return w.Input([]byte("\xf0")) },  // carried, then Close
		}
		for i, step := range steps {
			clock.set(time.Duration(i+1) * time.Second)
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
	})
	checkFormat(t, file)
	want := []string{
		`[1.000000, "r", "120x40"]`,
		`[2.000000, "i", "ls\r"]`,
		`[4.000000, "i", "€\u001b[A"]`,
		`[5.000000, "m", "tests \"green\""]`,
		`[6.000000, "m", ""]`,
		`[7.000000, "m", "bad ` + "\uFFFD" + `"]`,
		`[9.000000, "o", "` + "\uFFFD" + `"]`,
		`[9.000000, "i", "` + "\uFFFD" + `"]`,
	}
	if got := eventLines(file); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, evs := mustRead(t, file)
	if evs[0].Type != TypeResize {
		t.Fatalf("first event type %q, want r", evs[0].Type)
	}
	cols, rows, err := ParseResize(evs[0].Data)
	if err != nil || cols != 120 || rows != 40 {
		t.Errorf("ParseResize(%q) = %d, %d, %v", evs[0].Data, cols, rows, err)
	}
}

func TestResizeRejectsBadSize(t *testing.T) {
	w, err := NewWriter(&bytes.Buffer{}, testHeader(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Resize(0, 10); err == nil {
		t.Error("Resize(0, 10) succeeded")
	}
}

// closeRecorder is a writer that notices whether it was closed.
type closeRecorder struct {
	bytes.Buffer
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestClose(t *testing.T) {
	var out closeRecorder
	w, err := NewWriter(&out, testHeader(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.closed {
		t.Error("Close closed the underlying writer, which belongs to the caller")
	}
	for name, call := range map[string]func() error{
		"Output": func() error { return w.Output([]byte("x")) },
		"Input":  func() error { return w.Input([]byte("x")) },
		"Resize": func() error { return w.Resize(1, 1) },
		"Marker": func() error { return w.Marker("x") },
		"Flush":  w.Flush,
		"Close":  w.Close,
	} {
		if err := call(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// failAfter accepts n bytes, then fails.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteErrorsAreReported(t *testing.T) {
	if _, err := NewWriter(&failAfter{n: 10}, testHeader(), nil); !errors.Is(err, errDiskFull) {
		t.Errorf("NewWriter on a failing writer: %v, want errDiskFull", err)
	}
	w, err := NewWriter(&failAfter{n: 100}, testHeader(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Larger than the buffer, so Output itself has to write.
	if err := w.Output(bytes.Repeat([]byte("x"), 2*bufferSize)); !errors.Is(err, errDiskFull) {
		t.Errorf("Output: %v, want errDiskFull", err)
	}
	if err := w.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v, want errDiskFull", err)
	}
}

// TestConcurrentUse is for the race detector: the PTY loop writes output
// while the GUI resizes and a timer flushes.
func TestConcurrentUse(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 500 {
			if err := w.Output([]byte("out 中\r\n")); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for i := range 500 {
			if err := w.Resize(80+i%10, 24); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for range 100 {
			if err := w.Flush(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkFormat(t, buf.Bytes())
	_, evs := mustRead(t, buf.Bytes())
	if len(evs) != 1000 {
		t.Errorf("%d events, want 1000", len(evs))
	}
}

// TestByteTables checks the hand-typed tables of encode.go against the rule
// they encode, and every single byte against encoding/json.
func TestByteTables(t *testing.T) {
	if len(byteClass) != 256 || len(escapeLetter) != 0x60 {
		t.Fatalf("table lengths %d and %d, want 256 and 96", len(byteClass), len(escapeLetter))
	}
	for c := range 256 {
		want := byte('u')
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			want = 'e'
		case c < 0x80:
			want = 'p'
		}
		if byteClass[c] != want {
			t.Errorf("byteClass[%#x] = %q, want %q", c, byteClass[c], want)
		}
		var b []byte
		var carry utf8Carry
		b = append(b, '"')
		b = appendEscaped(b, &carry, []byte{byte(c)})
		b = flushCarry(b, &carry)
		b = append(b, '"')
		var got string
		if err := json.Unmarshal(b, &got); err != nil || got != string([]rune(string([]byte{byte(c)}))) {
			t.Errorf("byte %#x encodes as %s, which encoding/json reads as %q (%v)", c, b, got, err)
		}
	}
}
