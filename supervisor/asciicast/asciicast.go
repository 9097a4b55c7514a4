// Package asciicast writes and reads terminal recordings in the asciicast v2
// format (https://docs.asciinema.org/manual/asciicast/v2/), the format
// asciinema and its web player understand, so a session recorded by the
// supervisor can be replayed by Switchboard's GUI and by any asciinema tool.
//
// A file is a header line, a JSON object, followed by one event per line, a
// JSON array [seconds, type, data]:
//
//	{"version":2,"width":80,"height":24,"timestamp":1700000000,"env":{"TERM":"xterm-256color"}}
//	[0.125000,"o","$ "]
//	[1.500000,"r","100x30"]
//
// What survives a round trip: event data is a JSON string, which can carry
// only Unicode text, never raw bytes. The Writer therefore decodes the output
// stream as UTF-8 across Output calls (a rune split between two calls is
// joined, not mangled) and writes U+FFFD for each byte that is not part of a
// valid UTF-8 sequence. Once the Writer is closed, concatenating the "o"
// data of the file gives exactly string([]rune(string(all bytes passed to
// Output))): for valid UTF-8 that is the input byte for byte; for invalid
// input, every offending byte becomes one U+FFFD and everything else is
// kept. The same holds for "i" events and Input. (A file whose writer
// crashed lacks at most the last three bytes of a rune that was cut off.)
package asciicast

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header is the first line of a recording.
type Header struct {
	// Width and Height are the terminal's initial size in columns and rows;
	// both must be positive.
	Width, Height int
	// Timestamp is when the recording started. Event times are measured
	// from it. The file stores it in whole Unix seconds (as asciinema
	// does), so a Reader returns it truncated to the second while event
	// times stay measured from the exact instant.
	Timestamp time.Time
	// Title is an optional human-readable name for the recording.
	Title string
	// Env holds the environment variables players care about, TERM and
	// SHELL; nil or empty omits the field.
	Env map[string]string
	// Command is the optional command line that was recorded.
	Command string
}

// EventType says what an event's data is. Readers must skip types they do
// not know: the format allows new ones.
type EventType string

// The event types of asciicast v2.
const (
	// TypeOutput is data the program wrote to the terminal.
	TypeOutput EventType = "o"
	// TypeInput is data typed into the terminal.
	TypeInput EventType = "i"
	// TypeResize is a change of terminal size; its data is "COLSxROWS"
	// (see ParseResize).
	TypeResize EventType = "r"
	// TypeMarker is a named point in the recording (a chapter, a
	// breakpoint); its data is the label, possibly empty.
	TypeMarker EventType = "m"
)

// Event is one line after the header.
type Event struct {
	// Time is the time since the header's Timestamp.
	Time time.Duration
	Type EventType
	Data string
}

// ErrTruncated means the last line of a recording ends without a newline and
// is not a complete event: the writer stopped in the middle of it, usually
// because the process crashed. Every complete event before it has been
// returned, so a replay can still show them.
var ErrTruncated = errors.New("asciicast: recording ends in the middle of a line")

// ErrVersion means the header names a format version other than 2 (version 1
// is a single JSON document; version 3 stores intervals instead of times).
var ErrVersion = errors.New("asciicast: unsupported format version")

// ErrClosed means the Writer was used after Close.
var ErrClosed = errors.New("asciicast: writer is closed")

// ParseResize parses the data of a resize event, "COLSxROWS" in decimal
// digits, such as "80x24". Both numbers must be positive.
func ParseResize(data string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(data, "x")
	if ok {
		cols, err = parseDimension(c)
		if err == nil {
			rows, err = parseDimension(r)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("asciicast: resize data %q is not COLSxROWS", data)
	}
	return cols, rows, nil
}

// parseDimension accepts only plain decimal digits: strconv.Atoi alone would
// also let "+80" and "-1" through.
func parseDimension(s string) (int, error) {
	if s == "" || len(s) > 9 {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	n, err := strconv.Atoi(s)
	if err == nil && n == 0 {
		return 0, strconv.ErrRange
	}
	return n, err
}
