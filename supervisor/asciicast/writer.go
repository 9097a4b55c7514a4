package asciicast

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// bufferSize is the Writer's buffer: large enough that a busy terminal costs
// one write system call per many chunks (a PTY read is at most a few KiB).
const bufferSize = 64 << 10

// escapeSegment is how much of one Output call is escaped at a time.
const escapeSegment = 32 << 10

// maxKeptScratch is the largest encoding buffer kept between events; one
// huge event should not pin its memory for the rest of the session.
const maxKeptScratch = 1 << 20

// Writer writes a recording. Its methods may be called from several
// goroutines (the PTY read loop writes output while the GUI resizes); events
// appear in the order the calls took the Writer's lock.
//
// Events are buffered: call Flush to make them visible to a reader of the
// file (a live replay, a test), and Close at the end of the session.
type Writer struct {
	mu sync.Mutex
	// start is the header's Timestamp; event times are measured from it.
	start time.Time
	clock func() time.Time

	// The fields below are guarded by mu.
	bw *bufio.Writer
	// last is the time of the previous event, so that times never go
	// backwards even when the clock does.
	last time.Duration
	// scratch is the reused buffer one event line is encoded into.
	scratch []byte
	// outCarry and inCarry hold UTF-8 sequences cut off at the end of the
	// previous Output or Input call.
	outCarry, inCarry utf8Carry
	closed            bool
	// size is how many bytes the recording holds at the destination,
	// buffered ones included (see Size).
	size int64
}

// headerJSON is the header line as it is stored; Reader uses it too.
type headerJSON struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp float64           `json:"timestamp,omitempty"`
	Command   string            `json:"command,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// NewWriter writes h as the header line of a recording to w and flushes it,
// so that even a session that crashes before its first event leaves a
// readable file. Event times come from clock (time.Now when nil) as the time
// since h.Timestamp; a zero Timestamp means clock(). Pass a Timestamp taken
// with time.Now, not parsed or rounded: then event times use Go's monotonic
// clock and a change of the wall clock does not show in the recording.
//
// The Writer never closes w: whoever opened the file closes it after
// Close, and may sync it first.
func NewWriter(w io.Writer, h Header, clock func() time.Time) (*Writer, error) {
	if h.Width <= 0 || h.Height <= 0 {
		return nil, fmt.Errorf("asciicast: new recording: terminal size %dx%d is not positive", h.Width, h.Height)
	}
	if clock == nil {
		clock = time.Now
	}
	if h.Timestamp.IsZero() {
		h.Timestamp = clock()
	}
	bw := bufio.NewWriterSize(w, bufferSize)
	enc := json.NewEncoder(bw)
	// Titles and commands are shown, not embedded in HTML: keep < > & as
	// they are.
	enc.SetEscapeHTML(false)
	hdr := headerJSON{
		Version:   2,
		Width:     h.Width,
		Height:    h.Height,
		Timestamp: float64(h.Timestamp.Unix()),
		Command:   h.Command,
		Title:     h.Title,
		Env:       h.Env,
	}
	// Encode ends the line with '\n'.
	if err := enc.Encode(hdr); err != nil {
		return nil, fmt.Errorf("asciicast: write header: %w", err)
	}
	size := int64(bw.Buffered())
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("asciicast: write header: %w", err)
	}
	return &Writer{start: h.Timestamp, clock: clock, bw: bw, size: size}, nil
}

// Size is how many bytes the recording holds: the header and every event
// line written so far, including those still buffered. Events written
// after Size are at that offset of the destination (counted from where
// NewWriter or Redirect started it), which is what a program that cuts a
// recording at an event boundary needs to know.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// Carried is how many bytes of the output so far the Writer holds for the
// next Output: the start of a UTF-8 sequence the last call cut off, in no
// event yet. (Output bytes passed in, less Carried, are in the events.)
func (w *Writer) Carried() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.outCarry.n
}

// Redirect flushes the buffered events to the current destination and
// sends every later one to dst, which already holds size bytes of the
// recording (a header and the events kept, say). Everything else goes on
// as before: a UTF-8 sequence cut off by the last Output is still
// completed by the next one, and times never go backwards. If the flush
// fails, the Writer keeps its destination and the error is returned.
func (w *Writer) Redirect(dst io.Writer, size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: redirect: %w", ErrClosed)
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("asciicast: redirect: %w", err)
	}
	w.bw.Reset(dst)
	w.size = size
	return nil
}

// Output records p as written by the program to the terminal, one "o" event
// per call (players expect events as the program produced them). p may end
// in the middle of a UTF-8 sequence; the rest is expected from the next call.
// A call whose bytes all wait for the next call writes no event, nor does an
// empty p.
func (w *Writer) Output(p []byte) error {
	return w.stream(TypeOutput, &w.outCarry, p)
}

// Input records p as typed into the terminal, with the same UTF-8 handling
// as Output. The supervisor does not record input by default: what a user
// types includes passwords and tokens that the terminal does not echo, and a
// recording is a file kept on disk and shared for replay. Output already
// shows what the program chose to display.
func (w *Writer) Input(p []byte) error {
	return w.stream(TypeInput, &w.inCarry, p)
}

// Resize records that the terminal is now cols × rows.
func (w *Writer) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return fmt.Errorf("asciicast: record resize: size %dx%d is not positive", cols, rows)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: record resize: %w", ErrClosed)
	}
	b := w.beginLocked(TypeResize)
	b = strconv.AppendInt(b, int64(cols), 10)
	b = append(b, 'x')
	b = strconv.AppendInt(b, int64(rows), 10)
	if err := w.endLocked(b); err != nil {
		return fmt.Errorf("asciicast: record resize: %w", err)
	}
	return nil
}

// Marker records a named point, which players offer as a place to jump to.
// Invalid UTF-8 in label becomes U+FFFD.
func (w *Writer) Marker(label string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: record marker: %w", ErrClosed)
	}
	b := w.beginLocked(TypeMarker)
	// A label arrives whole: nothing can complete a cut-off rune later.
	var carry utf8Carry
	b = appendEscaped(b, &carry, []byte(label))
	b = flushCarry(b, &carry)
	if err := w.endLocked(b); err != nil {
		return fmt.Errorf("asciicast: record marker: %w", err)
	}
	return nil
}

// Flush writes the buffered events to the underlying writer. A UTF-8
// sequence cut off by the last Output stays carried: the next Output may
// still complete it.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: flush: %w", ErrClosed)
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("asciicast: flush: %w", err)
	}
	return nil
}

// Close ends the recording: bytes of a UTF-8 sequence that was never
// completed are written as U+FFFD each, and everything is flushed. It does
// not close the underlying writer. Using the Writer after Close returns
// ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: close: %w", ErrClosed)
	}
	w.closed = true
	for _, s := range []struct {
		typ   EventType
		carry *utf8Carry
	}{{TypeOutput, &w.outCarry}, {TypeInput, &w.inCarry}} {
		if s.carry.n == 0 {
			continue
		}
		b := w.beginLocked(s.typ)
		b = flushCarry(b, s.carry)
		if err := w.endLocked(b); err != nil {
			return fmt.Errorf("asciicast: close: %w", err)
		}
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("asciicast: close: %w", err)
	}
	return nil
}

func (w *Writer) stream(typ EventType, carry *utf8Carry, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("asciicast: record %s event: %w", typ, ErrClosed)
	}
	b := w.beginLocked(typ)
	n := len(b)
	// appendEscaped reserves room for the worst case, six bytes per input
	// byte; in segments, a huge p costs little more than its own size.
	// The carry joins runes cut at segment boundaries as it does between
	// calls.
	for len(p) > 0 {
		seg := p[:min(len(p), escapeSegment)]
		b = appendEscaped(b, carry, seg)
		p = p[len(seg):]
	}
	if len(b) == n {
		w.scratch = b
		return nil // everything is carried to the next call
	}
	if err := w.endLocked(b); err != nil {
		return fmt.Errorf("asciicast: record %s event: %w", typ, err)
	}
	return nil
}

// beginLocked starts an event line in the scratch buffer, up to the opening
// quote of its data.
func (w *Writer) beginLocked(typ EventType) []byte {
	d := w.clock().Sub(w.start)
	if d < w.last {
		d = w.last
	}
	w.last = d
	b := append(w.scratch[:0], '[')
	b = appendSeconds(b, d)
	b = append(b, ", \""...)
	b = append(b, typ...)
	return append(b, "\", \""...)
}

// endLocked closes the event line in b and writes it.
func (w *Writer) endLocked(b []byte) error {
	b = append(b, "\"]\n"...)
	n, err := w.bw.Write(b)
	w.size += int64(n)
	if cap(b) > maxKeptScratch {
		b = nil
	}
	w.scratch = b
	return err
}
