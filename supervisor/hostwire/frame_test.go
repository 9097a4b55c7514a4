package hostwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	frames := []struct {
		typ     Type
		payload []byte
	}{
		{TypeHello, []byte(`{"protocol":1}`)},
		{TypeOutput, AppendOutputHeader(nil, "ses_a", 42)},
		{TypeInput, AppendInput(nil, "ses_a", []byte("ls\r"))},
		{TypeEvent, nil},
		{TypeOutput, bytes.Repeat([]byte{'x'}, MaxPayload)},
	}
	for _, f := range frames {
		if err := WriteFrame(&buf, f.typ, f.payload); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i, f := range frames {
		typ, p, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if typ != f.typ || !bytes.Equal(p, f.payload) {
			t.Errorf("frame %d: %s of %d bytes, want %s of %d", i, typ, len(p), f.typ, len(f.payload))
		}
	}
	if _, _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
}

func TestFrameRefusals(t *testing.T) {
	t.Parallel()
	if err := WriteFrame(io.Discard, TypeOutput, make([]byte, MaxPayload+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("writing a payload over the limit: %v, want ErrTooLarge", err)
	}
	tests := []struct {
		name  string
		input []byte
		want  error
	}{
		// The length is refused before anything is read or allocated:
		// the stream holds no payload at all.
		{"length over the limit", AppendHeader(nil, TypeOutput, MaxPayload+1), ErrTooLarge},
		{"largest length", []byte{byte(TypeOutput), 0xff, 0xff, 0xff, 0xff}, ErrTooLarge},
		{"payload cut short", append(AppendHeader(nil, TypeReply, 10), "abc"...), io.ErrUnexpectedEOF},
		{"header cut short", []byte{byte(TypeReply), 0}, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := NewReader(bytes.NewReader(tt.input)).Next()
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRawPayloads(t *testing.T) {
	t.Parallel()
	p := append(AppendOutputHeader(nil, "ses_x", 1<<40), "hello"...)
	id, off, data, err := ParseOutput(p)
	if err != nil || id != "ses_x" || off != 1<<40 || string(data) != "hello" {
		t.Errorf("ParseOutput = %q %d %q %v", id, off, data, err)
	}
	id, data, err = ParseInput(AppendInput(nil, "ses_y", []byte("q")))
	if err != nil || id != "ses_y" || string(data) != "q" {
		t.Errorf("ParseInput = %q %q %v", id, data, err)
	}
	for _, bad := range [][]byte{nil, {0}, {5, 'a'}, {1, 'a', 0, 0}} {
		if _, _, _, err := ParseOutput(bad); !errors.Is(err, ErrFrame) {
			t.Errorf("ParseOutput(%q) = %v, want ErrFrame", bad, err)
		}
	}
}

func TestNegotiate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		local, remote Hello
		want          int
	}{
		{"same", Hello{Protocol: 1, MinProtocol: 1}, Hello{Protocol: 1, MinProtocol: 1}, 1},
		{"newer peer speaks ours", Hello{Protocol: 1, MinProtocol: 1}, Hello{Protocol: 3, MinProtocol: 1}, 1},
		{"older peer", Hello{Protocol: 2, MinProtocol: 2}, Hello{Protocol: 1, MinProtocol: 1}, 0},
		{"newer peer dropped ours", Hello{Protocol: 1, MinProtocol: 1}, Hello{Protocol: 4, MinProtocol: 3}, 0},
		{"no version", Hello{Protocol: 1, MinProtocol: 1}, Hello{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Negotiate(tt.local, tt.remote)
			if tt.want == 0 {
				if !errors.Is(err, ErrVersion) {
					t.Errorf("Negotiate = %d, %v; want ErrVersion", v, err)
				}
				return
			}
			if err != nil || v != tt.want {
				t.Errorf("Negotiate = %d, %v; want %d", v, err, tt.want)
			}
		})
	}
}

// FuzzReader feeds the decoder arbitrary streams: it never panics, never
// returns a payload over MaxPayload, and every frame it returns encodes
// back to the bytes it was read from.
func FuzzReader(f *testing.F) {
	var seed bytes.Buffer
	WriteFrame(&seed, TypeHello, []byte(`{"protocol":1}`))
	WriteFrame(&seed, TypeOutput, AppendOutputHeader(nil, "ses_a", 7), []byte("out"))
	f.Add(seed.Bytes())
	f.Add(AppendHeader(nil, TypeOutput, MaxPayload+1))
	f.Add(binary.BigEndian.AppendUint32([]byte{9}, 3))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		rest := in
		for {
			typ, p, err := r.Next()
			if err != nil {
				return
			}
			if len(p) > MaxPayload {
				t.Fatalf("payload of %d bytes", len(p))
			}
			var again bytes.Buffer
			if err := WriteFrame(&again, typ, p); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(rest, again.Bytes()) {
				t.Fatalf("frame %s of %d bytes does not encode back to its input", typ, len(p))
			}
			rest = rest[again.Len():]
			// The raw parsers must not panic on any payload either.
			ParseOutput(p)
			ParseInput(p)
		}
	})
}
