package asciicast

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

const goodHeader = `{"version": 2, "width": 80, "height": 24, "timestamp": 1504467315, "idle_time_limit": 2.5, "theme": {"fg": "#fff"}}` + "\n"

func TestNewReaderErrors(t *testing.T) {
	tests := []struct {
		name, file string
		// is is the sentinel the error must wrap, if any; text must appear
		// in the message.
		is   error
		text string
	}{
		{"empty", "", ErrTruncated, "empty"},
		{"header cut off", `{"version": 2, "wid`, ErrTruncated, "line 1"},
		{"version 1", `{"version": 1, "width": 80, "height": 24, "stdout": []}` + "\n", ErrVersion, "version 1"},
		{"version 3", `{"version": 3, "term": {"cols": 80, "rows": 24}}` + "\n", ErrVersion, "version 3"},
		{"no version", `{"width": 80, "height": 24}` + "\n", ErrVersion, "version 0"},
		{"v1 pretty-printed", "{\n  \"version\": 1,\n", nil, "line 1"},
		{"not JSON", "hello\n", nil, "line 1"},
		{"zero width", `{"version": 2, "width": 0, "height": 24}` + "\n", nil, "0x24"},
		{"string height", `{"version": 2, "width": 80, "height": "24"}` + "\n", nil, "line 1"},
		{"read error", "", iotest.ErrTimeout, "read header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.file)
			if tt.is == iotest.ErrTimeout {
				r = iotest.ErrReader(iotest.ErrTimeout)
			}
			_, err := NewReader(r)
			if err == nil {
				t.Fatal("NewReader succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not say %q", err, tt.text)
			}
		})
	}
}

func TestNextErrors(t *testing.T) {
	tests := []struct {
		name   string
		events string
		// good is how many events come before the error.
		good int
		is   error
		text string
	}{
		{"bad JSON", "[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"b\n[0.3, \"o\", \"c\"]\n", 1, nil, "line 3"},
		{"two elements", "[0.1, \"o\"]\n", 0, nil, "line 2"},
		{"four elements", "[0.1, \"o\", \"a\", \"b\"]\n", 0, nil, "line 2"},
		{"time as string", "[\"0.1\", \"o\", \"a\"]\n", 0, nil, "not a number"},
		{"negative time", "[-1, \"o\", \"a\"]\n", 0, nil, "out of range"},
		{"huge time", "[1e300, \"o\", \"a\"]\n", 0, nil, "out of range"},
		{"data as number", "[0.1, \"o\", 5]\n", 0, nil, "line 2"},
		{"bad escape", "[0.1, \"o\", \"\\x41\"]\n", 0, nil, "bad escape"},
		{"raw control character", "[0.1, \"o\", \"a\x01\"]\n", 0, nil, "control character"},
		{"an object", "{\"t\": 1}\n", 0, nil, "line 2"},
		{"junk after the array", "[0.1, \"o\", \"a\"] x\n", 0, nil, "after the event"},
		{"truncated last line", "[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"b\"]\n[0.3, \"o\", \"hal", 2, ErrTruncated, "line 4"},
		{"truncated inside an escape", "[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"\\u00", 1, ErrTruncated, "line 3"},
		{"truncated after the time", "[0.1, \"o\", \"a\"]\n[0.2", 1, ErrTruncated, "line 3"},
		{"truncated before the bracket", "[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"b\"", 1, ErrTruncated, "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs, err := readAll(t, []byte(goodHeader+tt.events))
			if len(evs) != tt.good {
				t.Errorf("%d events before the error, want %d", len(evs), tt.good)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if tt.is == nil && errors.Is(err, ErrTruncated) {
				t.Errorf("error %v is ErrTruncated, but the line is complete", err)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not say %q", err, tt.text)
			}
		})
	}
}

func TestNextErrorIsSticky(t *testing.T) {
	r, err := NewReader(strings.NewReader(goodHeader + "[0.1, \"o\", \"a\"]\nnope\n[0.3, \"o\", \"c\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, first := r.Next()
	_, second := r.Next()
	if first == nil || first != second {
		t.Errorf("errors %v then %v, want the same error twice", first, second)
	}
}

func TestReaderAccepts(t *testing.T) {
	tests := []struct {
		name, events string
		want         []Event
	}{
		{"no events", "", nil},
		{
			"asciinema's own style, with an unknown type",
			"[0.248848, \"o\", \"\\u001b[1;31mHello \\u001b[32mWorld!\\u001b[0m\\n\"]\n[1.001376, \"x\", \"future\"]\n",
			[]Event{
				{248848 * time.Microsecond, TypeOutput, "\x1b[1;31mHello \x1b[32mWorld!\x1b[0m\n"},
				{1001376 * time.Microsecond, "x", "future"},
			},
		},
		{"no final newline", "[1, \"o\", \"a\"]", []Event{{time.Second, TypeOutput, "a"}}},
		{"CRLF line ends and blank lines", "[1, \"o\", \"a\"]\r\n\r\n\n[2e0, \"m\", \"\"]\r\n", []Event{
			{time.Second, TypeOutput, "a"}, {2 * time.Second, TypeMarker, ""},
		}},
		{"whitespace inside", " [ 1.5 ,\t\"r\" , \"80x24\" ] \n", []Event{{1500 * time.Millisecond, TypeResize, "80x24"}}},
		{"escapes", `[0, "i", "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud83d"]` + "\n", []Event{
			{0, TypeInput, "\"\\/\b\f\n\r\t\u00e9😀\uFFFD"},
		}},
		{"invalid UTF-8 in the file", "[0, \"o\", \"a\xffb\"]\n", []Event{{0, TypeOutput, "a\uFFFDb"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, evs := mustRead(t, []byte(goodHeader+tt.events))
			if h.Width != 80 || h.Height != 24 || !h.Timestamp.Equal(time.Unix(1504467315, 0)) {
				t.Errorf("header %+v", h)
			}
			if len(evs) != len(tt.want) {
				t.Fatalf("events %q, want %q", evs, tt.want)
			}
			for i := range evs {
				if evs[i] != tt.want[i] {
					t.Errorf("event %d: %q, want %q", i, evs[i], tt.want[i])
				}
			}
		})
	}
}

// TestLongEvent reads an event far larger than the Reader's buffer, written
// through a reader that returns a few bytes at a time.
func TestLongEvent(t *testing.T) {
	big := strings.Repeat("x\x1b[0m中\n", (4<<20)/10)
	file := record(t, testHeader(), newFakeClock().now, func(w *Writer) {
		for _, data := range []string{"before", big, "after"} {
			if err := w.Output([]byte(data)); err != nil {
				t.Fatal(err)
			}
		}
	})
	if len(file) < 4<<20 {
		t.Fatalf("file is only %d bytes", len(file))
	}
	r, err := NewReader(iotest.HalfReader(bytes.NewReader(file)))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"before", big, "after"} {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if ev.Data != want {
			t.Fatalf("event %d: %d bytes, want %d", i, len(ev.Data), len(want))
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}

func TestLineTooLong(t *testing.T) {
	file := io.MultiReader(strings.NewReader(goodHeader+`[0, "o", "`), neverEnding('x'))
	r, err := NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "line 2: line longer than") {
		t.Fatalf("Next: %v, want a line-too-long error", err)
	}
}

// neverEnding is an endless stream of one byte.
type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestParseResize(t *testing.T) {
	tests := []struct {
		in         string
		cols, rows int
		ok         bool
	}{
		{"80x24", 80, 24, true},
		{"1x1", 1, 1, true},
		{"500x200", 500, 200, true},
		{"80X24", 0, 0, false},
		{"80x", 0, 0, false},
		{"x24", 0, 0, false},
		{"0x24", 0, 0, false},
		{"80x0", 0, 0, false},
		{"+80x24", 0, 0, false},
		{"-80x24", 0, 0, false},
		{" 80x24", 0, 0, false},
		{"80x24x1", 0, 0, false},
		{"99999999999x1", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		cols, rows, err := ParseResize(tt.in)
		if (err == nil) != tt.ok || cols != tt.cols || rows != tt.rows {
			t.Errorf("ParseResize(%q) = %d, %d, %v", tt.in, cols, rows, err)
		}
	}
}

func TestHeaderReturnsACopy(t *testing.T) {
	file := record(t, Header{Width: 1, Height: 1, Env: map[string]string{"TERM": "xterm"}}, nil, func(*Writer) {})
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	r.Header().Env["TERM"] = "changed"
	if got := r.Header().Env["TERM"]; got != "xterm" {
		t.Errorf("TERM = %q after changing a copy", got)
	}
}
