package asciicast

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// Size counts buffered events too, and after a flush it is the length of
// what the destination holds: a cut at Size is at an event boundary.
func TestSizeIsTheDestinationsLength(t *testing.T) {
	var buf bytes.Buffer
	clock := newFakeClock()
	w, err := NewWriter(&buf, testHeader(), clock.now)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Size(); got != int64(buf.Len()) {
		t.Fatalf("Size after the header = %d, the file holds %d", got, buf.Len())
	}
	steps := []func() error{
		func() error { return w.Output([]byte("hello\r\n")) },
		func() error { return w.Resize(100, 30) },
		func() error { return w.Marker("chapter") },
		func() error { return w.Output([]byte("日")[:2]) }, // carried: no event
	}
	for i, step := range steps {
		before := w.Size()
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := w.Size(); got != int64(buf.Len()) {
			t.Fatalf("step %d: Size = %d, the file holds %d", i, got, buf.Len())
		}
		if i < 3 && w.Size() == before {
			t.Errorf("step %d wrote an event but Size did not grow", i)
		}
	}
}

// After Redirect the events go to the new destination, a rune cut off
// before it is completed after it, and times do not go backwards.
func TestRedirect(t *testing.T) {
	var first, second bytes.Buffer
	clock := newFakeClock()
	w, err := NewWriter(&first, testHeader(), clock.now)
	if err != nil {
		t.Fatal(err)
	}
	clock.set(2 * time.Second)
	if err := w.Output([]byte("before 日")[:8]); err != nil { // "before " and the first byte of 日
		t.Fatal(err)
	}
	head := []byte(`{"version":2,"width":80,"height":24}` + "\n")
	second.Write(head)
	if got := w.Carried(); got != 1 {
		t.Errorf("Carried = %d with a byte of 日 written, want 1", got)
	}
	if err := w.Redirect(&second, int64(len(head))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(first.Bytes(), []byte(`"before "`)) {
		t.Errorf("Redirect did not flush to the first destination: %q", first.Bytes())
	}
	clock.set(time.Second) // the clock goes back; the recording must not
	if err := w.Output([]byte("日 after")[1:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(second.Len()) {
		t.Errorf("Size = %d after Redirect, the new destination holds %d", w.Size(), second.Len())
	}
	checkFormat(t, second.Bytes())
	_, evs := mustRead(t, second.Bytes())
	if len(evs) != 1 || evs[0].Data != "日 after" || evs[0].Time != 2*time.Second {
		t.Errorf("events after Redirect = %+v, want one \"日 after\" at 2s", evs)
	}
}

// A Writer whose destination failed keeps it: Redirect says so.
func TestRedirectAfterAFailedFlush(t *testing.T) {
	fail := &failAfter{n: 1 << 20}
	w, err := NewWriter(fail, testHeader(), newFakeClock().now)
	if err != nil {
		t.Fatal(err)
	}
	fail.n = 0
	if err := w.Output([]byte("lost")); err != nil {
		t.Fatal(err) // buffered: nothing written yet
	}
	var other bytes.Buffer
	if err := w.Redirect(&other, 0); !errors.Is(err, errDiskFull) {
		t.Errorf("Redirect over a failing flush = %v, want errDiskFull", err)
	}
	w.Close()
	if err := w.Redirect(&other, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Redirect after Close = %v, want ErrClosed", err)
	}
}

func TestAppendEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   Event
		line string
		back Event
	}{
		{"output", Event{Time: 1500 * time.Millisecond, Type: TypeOutput, Data: "a\x1b[0m\"\\"},
			`[1.500000, "o", "a\u001b[0m\"\\"]` + "\n", Event{Time: 1500 * time.Millisecond, Type: TypeOutput, Data: "a\x1b[0m\"\\"}},
		{"marker", Event{Time: time.Hour, Type: TypeMarker, Data: "cut 日"},
			`[3600.000000, "m", "cut 日"]` + "\n", Event{Time: time.Hour, Type: TypeMarker, Data: "cut 日"}},
		{"cut-off rune and invalid byte", Event{Type: TypeOutput, Data: "x\xff\xe6\x97"},
			"[0.000000, \"o\", \"x\uFFFD\uFFFD\uFFFD\"]\n", Event{Type: TypeOutput, Data: "x\uFFFD\uFFFD\uFFFD"}},
		{"negative time", Event{Time: -time.Second, Type: TypeOutput, Data: "x"},
			`[0.000000, "o", "x"]` + "\n", Event{Type: TypeOutput, Data: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := AppendEvent([]byte("keep"), tc.ev)
			if got := string(line[4:]); got != tc.line {
				t.Errorf("AppendEvent = %q, want %q", got, tc.line)
			}
			file := append([]byte(`{"version":2,"width":80,"height":24}`+"\n"), line[4:]...)
			checkFormat(t, file)
			if _, evs := mustRead(t, file); len(evs) != 1 || evs[0] != tc.back {
				t.Errorf("read back %+v, want %+v", evs, tc.back)
			}
		})
	}
}
