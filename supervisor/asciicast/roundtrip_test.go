package asciicast

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"
)

// randomText returns n runes of the kinds a terminal sees: ASCII, control
// characters and escape sequences, and runes of two, three and four bytes.
func randomText(rng *rand.Rand, n int) []byte {
	pieces := []string{
		"a", "Z", " ", "0", "\r\n", "\t", "\x00", "\x7f", "\x1b", "\x1b[0m", "\x1b[38;5;208m",
		`"`, `\`, "/", "é", "ß", "中", "文", "✓", "\u2028", "\u2029", "\uFFFD", "\uFEFF",
		"😀", "🇫🇷", "\U0010FFFF", "\u0301",
	}
	var b []byte
	for range n {
		if rng.IntN(4) == 0 {
			// Any code point; AppendRune writes surrogates as U+FFFD.
			b = utf8.AppendRune(b, rune(rng.IntN(0x110000)))
			continue
		}
		b = append(b, pieces[rng.IntN(len(pieces))]...)
	}
	return b
}

// chunk cuts b at random byte offsets, often inside a rune.
func chunk(rng *rand.Rand, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 1 + rng.IntN(min(len(b), 1+rng.IntN(64)))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func TestRandomValidUTF8RoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		text := randomText(rng, rng.IntN(400))
		clock := newFakeClock()
		file := record(t, testHeader(), clock.now, func(w *Writer) {
			for j, c := range chunk(rng, text) {
				clock.set(time.Duration(j) * time.Millisecond)
				if err := w.Output(c); err != nil {
					t.Fatal(err)
				}
			}
		})
		checkFormat(t, file)
		_, evs := mustRead(t, file)
		if got := dataOf(evs, TypeOutput); got != string(text) {
			t.Fatalf("stream %d: read back %q\nwant %q", i, got, text)
		}
	}
}

// FuzzRoundTrip writes any bytes, cut at two points, as output and checks
// that the file follows the format, that Reader reads back what the writer
// wrote (the stream decoded as UTF-8 as a whole), and that valid UTF-8
// comes back byte for byte.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello"), uint16(2), uint16(3))
	f.Add([]byte("中文😀"), uint16(1), uint16(5))
	f.Add([]byte("\xf0\x9f\x98\x80"), uint16(1), uint16(3))
	f.Add([]byte("\xe4\xb8\xff\xc0\xaf\xed\xa0\x80"), uint16(1), uint16(2))
	f.Add([]byte("\x1b[0m\"\\\x00\r\n\x7f\u2028"), uint16(0), uint16(7))
	f.Add([]byte("\xf0\x9f"), uint16(1), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint16) {
		a := min(int(cut1), len(data))
		b := min(max(int(cut2), a), len(data))
		file := record(t, testHeader(), newFakeClock().now, func(w *Writer) {
			for _, c := range [][]byte{data[:a], data[a:b], data[b:]} {
				if err := w.Output(c); err != nil {
					t.Fatal(err)
				}
			}
			// The same bytes as one input event, to cover its carry too.
			if err := w.Input(data); err != nil {
				t.Fatal(err)
			}
		})
		checkFormat(t, file)
		_, evs := mustRead(t, file)
		want := string([]rune(string(data)))
		if got := dataOf(evs, TypeOutput); got != want {
			t.Fatalf("output read back %q, want %q", got, want)
		}
		if got := dataOf(evs, TypeInput); got != want {
			t.Fatalf("input read back %q, want %q", got, want)
		}
		if utf8.Valid(data) && want != string(data) {
			t.Fatalf("valid UTF-8 %q changed to %q", data, want)
		}
	})
}

// FuzzParseEvent checks the hand-written event parser against
// encoding/json: the same lines are accepted, with the same values.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{
		`[0.5, "o", "hi"]`,
		`[1e3,"i","\u00e9\ud83d\ude00"]`,
		`[ 0 , "m" , "" ]`,
		`[-0, "o", "\ud800x"]`,
		`[0.1, "o", "\udc00\ud800"]`,
		`[0.1, "o", "\ud83d\u0041"]`,
		`[01, "o", "x"]`,
		`[1., "o", "x"]`,
		`[.5, "o", "x"]`,
		`[1e, "o", "x"]`,
		`[0x10, "o", "x"]`,
		`[Infinity, "o", "x"]`,
		`[1, "o", "a` + "\xff\xc0" + `"]`,
		`[1, "o", "a` + "\x01" + `"]`,
		`[1, "o", "\x"]`,
		`[1, "o", null]`,
		`[null, "o", "x"]`,
		`[1, "o", "x",]`,
		`[1, "o", "x"] `,
		"[1, \"o\", \"x\"]\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, _, err := parseEvent(line, nil)
		want, ok := referenceParse(line)
		if (err == nil) != ok {
			t.Fatalf("parseEvent(%q): err %v, but encoding/json accepts: %v", line, err, ok)
		}
		if ok && got != want {
			t.Fatalf("parseEvent(%q) = %q, encoding/json says %q", line, got, want)
		}
	})
}

// referenceParse parses an event line with encoding/json.
func referenceParse(line []byte) (Event, bool) {
	var raw []json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil || len(raw) != 3 {
		return Event{}, false
	}
	// Unmarshal of null into a number or string succeeds and does nothing,
	// so check the kinds first.
	if c := raw[0][0]; c != '-' && (c < '0' || c > '9') || raw[1][0] != '"' || raw[2][0] != '"' {
		return Event{}, false
	}
	var secs float64
	var typ, data string
	if json.Unmarshal(raw[0], &secs) != nil || json.Unmarshal(raw[1], &typ) != nil || json.Unmarshal(raw[2], &data) != nil {
		return Event{}, false
	}
	if secs < 0 || secs*1e9 >= math.MaxInt64 {
		return Event{}, false
	}
	return Event{Time: time.Duration(math.Round(secs * 1e9)), Type: EventType(typ), Data: data}, true
}

// TestWrittenLinesParseLikeEncodingJSON runs lines the Writer made through
// both parsers, so the comparison runs even when fuzzing is off.
func TestWrittenLinesParseLikeEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		text := randomText(rng, 1+rng.IntN(50))
		var buf bytes.Buffer
		w, err := NewWriter(&buf, testHeader(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Output(text); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		line := eventLines(buf.Bytes())[0]
		got, _, err := parseEvent([]byte(line), nil)
		want, ok := referenceParse([]byte(line))
		if err != nil || !ok || got != want || got.Data != string(text) {
			t.Fatalf("line %q: parseEvent %q %v, encoding/json %q %v", line, got, err, want, ok)
		}
	}
}
