package asciicast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"time"
)

// MaxLineSize is the longest line a Reader accepts. Events of many
// megabytes are legitimate (a program that prints a large file at once,
// recorded by another tool in one event), but a file that is not a
// recording at all might have no newline in gigabytes.
const MaxLineSize = 64 << 20

// Reader reads a recording one event at a time, so a replay can start
// showing it before reaching its end. A Reader is not safe for concurrent
// use.
type Reader struct {
	br     *bufio.Reader
	header Header
	// lineNo is the number of the last line read, counting from 1 for the
	// header, for error messages.
	lineNo int
	// line gathers a line longer than br's buffer.
	line []byte
	// scratch is the reused buffer strings are unescaped into.
	scratch []byte
	// err is returned by every Next after the first error, including
	// io.EOF and ErrTruncated.
	err error
}

// NewReader reads and checks the header line: the version must be 2 (the
// error wraps ErrVersion otherwise) and the size positive. An empty input,
// or a header cut off by a crash, gives an error wrapping ErrTruncated.
// Header fields that Header does not hold, such as idle_time_limit or
// theme, are ignored.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	line, complete, err := rd.readLine()
	if err == io.EOF {
		return nil, fmt.Errorf("asciicast: read header: the input is empty: %w", ErrTruncated)
	}
	if err != nil {
		return nil, fmt.Errorf("asciicast: read header: %w", err)
	}
	var h headerJSON
	if err := json.Unmarshal(line, &h); err != nil {
		if !complete {
			return nil, fmt.Errorf("asciicast: line 1: read header: %w", ErrTruncated)
		}
		return nil, fmt.Errorf("asciicast: line 1: read header (is this an asciicast v2 file?): %w", err)
	}
	if h.Version != 2 {
		return nil, fmt.Errorf("asciicast: line 1: version %d, want 2: %w", h.Version, ErrVersion)
	}
	if h.Width <= 0 || h.Height <= 0 {
		return nil, fmt.Errorf("asciicast: line 1: terminal size %dx%d is not positive", h.Width, h.Height)
	}
	rd.header = Header{
		Width:   h.Width,
		Height:  h.Height,
		Title:   h.Title,
		Env:     h.Env,
		Command: h.Command,
	}
	if h.Timestamp != 0 {
		sec, frac := math.Modf(h.Timestamp)
		rd.header.Timestamp = time.Unix(int64(sec), int64(frac*1e9))
	}
	return rd, nil
}

// Header returns the recording's header. Its Env is a copy.
func (r *Reader) Header() Header {
	h := r.header
	h.Env = maps.Clone(h.Env)
	return h
}

// Next returns the next event. At the end it returns io.EOF, or an error
// wrapping ErrTruncated when the last line was cut off. A malformed line
// gives an error naming its line number; it and every later call return
// that error. Empty lines are skipped. Events of unknown types are returned
// like the others: skipping them is the caller's choice.
func (r *Reader) Next() (Event, error) {
	for r.err == nil {
		line, complete, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("asciicast: line %d: %w", r.lineNo, err)
			}
			r.err = err
			break
		}
		if isBlank(line) {
			continue
		}
		ev, scratch, err := parseEvent(line, r.scratch)
		r.scratch = scratch
		if err != nil {
			if !complete {
				// A writer that crashed leaves a partial line without
				// a newline. (A complete event without its newline is
				// accepted above: the file may simply lack the final one.)
				err = ErrTruncated
			}
			r.err = fmt.Errorf("asciicast: line %d: %w", r.lineNo, err)
			break
		}
		return ev, nil
	}
	return Event{}, r.err
}

// isBlank reports whether line holds only JSON whitespace.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// readLine returns the next line without its '\n', and whether it had one.
// The line is valid until the next call. It returns io.EOF only when there
// is no byte left.
func (r *Reader) readLine() (line []byte, complete bool, err error) {
	r.lineNo++
	r.line = r.line[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			chunk = chunk[:len(chunk)-1]
			if len(r.line) == 0 {
				return chunk, true, nil // the common case: no copy
			}
			r.line = append(r.line, chunk...)
			return r.line, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.line)+len(chunk) > MaxLineSize {
				return nil, false, fmt.Errorf("line longer than %d bytes", MaxLineSize)
			}
			r.line = append(r.line, chunk...)
		case err == io.EOF:
			r.line = append(r.line, chunk...)
			if len(r.line) == 0 {
				return nil, false, io.EOF
			}
			return r.line, false, nil
		default:
			return nil, false, fmt.Errorf("read: %w", err)
		}
	}
}
