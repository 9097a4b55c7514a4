// Package hostwire is the protocol between Switchboard and its agent host:
// the process that owns the agents' terminals so that they outlive the app
// (supervisor's host_*.go). It is a leaf: frames and messages only, no
// knowledge of processes or terminals.
//
// A connection is a stream of frames. Each frame is one type byte, a
// four-byte big-endian length and that many bytes of payload; a length over
// MaxPayload is refused, not read. Control frames (hello, request, reply,
// event) carry one JSON object; output and input frames carry a session id
// and raw terminal bytes, so that an agent's output is never escaped or
// copied into JSON.
//
// Both sides send a Hello first. The frame layout and the Hello message are
// what every version keeps: a peer that speaks another version reads the
// other's Hello and can say why it refuses.
package hostwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Type is a frame's first byte.
type Type byte

const (
	// TypeHello carries a Hello, the first frame each side sends.
	TypeHello Type = 1
	// TypeRequest carries a Request, from the client.
	TypeRequest Type = 2
	// TypeReply carries the Reply to one Request, from the host.
	TypeReply Type = 3
	// TypeEvent carries an Event the host tells unasked: an agent's exit,
	// an attachment dropped.
	TypeEvent Type = 4
	// TypeOutput carries an agent's output (AppendOutput), from the host.
	TypeOutput Type = 5
	// TypeInput carries bytes typed to an agent (AppendInput), from the
	// client. It has no reply: input is not waited for.
	TypeInput Type = 6
	// TypeState carries part of an agent's screen state, from the host
	// after an attach's reply (Attached.Caught bytes in all). Its payload
	// is laid out as an output frame's, the offset being where the live
	// output resumes (Attached.Offset).
	TypeState Type = 7
)

func (t Type) String() string {
	switch t {
	case TypeHello:
		return "hello"
	case TypeRequest:
		return "request"
	case TypeReply:
		return "reply"
	case TypeEvent:
		return "event"
	case TypeOutput:
		return "output"
	case TypeInput:
		return "input"
	case TypeState:
		return "state"
	}
	return fmt.Sprintf("type %d", byte(t))
}

// MaxPayload is the largest payload a frame may carry. A reader refuses a
// larger length before reading it: a peer cannot make the other side
// allocate what it likes.
const MaxPayload = 1 << 20

// headerSize is a frame's type byte and length.
const headerSize = 5

// ErrTooLarge is the cause of a frame refused for its length.
var ErrTooLarge = errors.New("frame larger than the protocol allows")

// ErrFrame is the cause of a frame whose payload does not parse.
var ErrFrame = errors.New("malformed frame")

// AppendHeader appends the header of a frame of type t whose payload is n
// bytes, for a writer that sends the payload from elsewhere (writev).
func AppendHeader(b []byte, t Type, n int) []byte {
	b = append(b, byte(t))
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

// WriteFrame writes one frame whose payload is the parts joined.
func WriteFrame(w io.Writer, t Type, parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > MaxPayload {
		return fmt.Errorf("write %s frame of %d bytes: %w", t, n, ErrTooLarge)
	}
	buf := make([]byte, 0, headerSize+n)
	buf = AppendHeader(buf, t, n)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write %s frame: %w", t, err)
	}
	return nil
}

// Reader reads frames from a stream.
type Reader struct {
	r   *bufio.Reader
	buf []byte
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next reads the next frame. The payload is valid until the next call. At
// the end of the stream between frames it returns io.EOF; inside a frame,
// io.ErrUnexpectedEOF.
func (r *Reader) Next() (Type, []byte, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r.r, h[:]); err != nil {
		return 0, nil, err
	}
	t, n := Type(h[0]), binary.BigEndian.Uint32(h[1:])
	if n > MaxPayload {
		return 0, nil, fmt.Errorf("%s frame of %d bytes: %w", t, n, ErrTooLarge)
	}
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	p := r.buf[:n]
	if _, err := io.ReadFull(r.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return t, p, nil
}

// Output and input payloads: the session id's length (one byte), the id,
// then for output the offset of the first byte in the agent's output
// stream (eight bytes, big-endian), then the bytes.

// MaxSessionID is the longest session id a raw frame can carry.
const MaxSessionID = 255

// OutputHeaderSize is the most an output payload adds to its bytes.
const OutputHeaderSize = 1 + MaxSessionID + 8

// AppendOutputHeader appends what precedes data in an output payload:
// session id and the offset of data's first byte in the agent's output.
func AppendOutputHeader(b []byte, session string, offset uint64) []byte {
	b = append(b, byte(len(session)))
	b = append(b, session...)
	return binary.BigEndian.AppendUint64(b, offset)
}

// ParseOutput splits an output payload. data aliases p.
func ParseOutput(p []byte) (session string, offset uint64, data []byte, err error) {
	session, rest, err := cutSession(p)
	if err != nil {
		return "", 0, nil, err
	}
	if len(rest) < 8 {
		return "", 0, nil, fmt.Errorf("output frame: %w: no offset", ErrFrame)
	}
	return session, binary.BigEndian.Uint64(rest), rest[8:], nil
}

// AppendInput appends an input payload: data for session.
func AppendInput(b []byte, session string, data []byte) []byte {
	b = append(b, byte(len(session)))
	b = append(b, session...)
	return append(b, data...)
}

// ParseInput splits an input payload. data aliases p.
func ParseInput(p []byte) (session string, data []byte, err error) {
	return cutSession(p)
}

func cutSession(p []byte) (string, []byte, error) {
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return "", nil, fmt.Errorf("%w: session id cut short", ErrFrame)
	}
	n := int(p[0])
	if n == 0 {
		return "", nil, fmt.Errorf("%w: no session id", ErrFrame)
	}
	return string(p[1 : 1+n]), p[1+n:], nil
}
