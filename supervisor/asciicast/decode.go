package asciicast

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// This file parses one event line, [number, string, string], by hand: a
// replay reads every line of recordings that grow to hundreds of megabytes,
// and encoding/json would allocate for the array and decode each string
// twice. The result is the same as encoding/json's (the fuzz test
// FuzzParseEvent checks it), including U+FFFD for invalid UTF-8 and for lone
// surrogate escapes.

// parseEvent parses line into ev. scratch is a reused buffer for unescaping;
// the grown buffer is returned.
func parseEvent(line, scratch []byte) (ev Event, _ []byte, err error) {
	p := eventParser{s: line, scratch: scratch}
	p.skipSpace()
	if err := p.expect('['); err != nil {
		return ev, p.scratch, err
	}
	p.skipSpace()
	secs, err := p.number()
	if err != nil {
		return ev, p.scratch, err
	}
	if secs < 0 || secs*1e9 >= math.MaxInt64 {
		return ev, p.scratch, fmt.Errorf("event time %g s is out of range", secs)
	}
	ev.Time = time.Duration(math.Round(secs * 1e9))
	if err := p.comma(); err != nil {
		return ev, p.scratch, err
	}
	typ, err := p.str()
	if err != nil {
		return ev, p.scratch, err
	}
	// The known types are one letter; spare them an allocation.
	switch string(typ) {
	case "o":
		ev.Type = TypeOutput
	case "i":
		ev.Type = TypeInput
	case "r":
		ev.Type = TypeResize
	case "m":
		ev.Type = TypeMarker
	default:
		ev.Type = EventType(typ)
	}
	if err := p.comma(); err != nil {
		return ev, p.scratch, err
	}
	data, err := p.str()
	if err != nil {
		return ev, p.scratch, err
	}
	ev.Data = string(data)
	p.skipSpace()
	if err := p.expect(']'); err != nil {
		return ev, p.scratch, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return ev, p.scratch, p.errorf("unexpected %q after the event", p.s[p.i])
	}
	return ev, p.scratch, nil
}

type eventParser struct {
	s       []byte
	i       int
	scratch []byte
}

func (p *eventParser) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *eventParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *eventParser) expect(c byte) error {
	if p.i >= len(p.s) {
		return p.errorf("line ends where %q was expected", c)
	}
	if p.s[p.i] != c {
		return p.errorf("found %q where %q was expected", p.s[p.i], c)
	}
	p.i++
	return nil
}

func (p *eventParser) comma() error {
	p.skipSpace()
	if err := p.expect(','); err != nil {
		return err
	}
	p.skipSpace()
	return nil
}

// number parses a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// strconv.ParseFloat alone would also take "inf", "0x1p3" and "1_0".
func (p *eventParser) number() (float64, error) {
	start := p.i
	s := p.s
	i := p.i
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return 0, p.errorf("the event time is not a number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return 0, p.errorf("the event time has no digits after '.'")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return 0, p.errorf("the event time has no digits in its exponent")
		}
	}
	p.i = i
	f, err := strconv.ParseFloat(string(s[start:i]), 64)
	if err != nil {
		p.i = start
		return 0, p.errorf("event time %s is out of range", s[start:i])
	}
	return f, nil
}

// str parses a JSON string and returns its value, which aliases either the
// line or the scratch buffer, so it is only valid until the next call.
func (p *eventParser) str() ([]byte, error) {
	if err := p.expect('"'); err != nil {
		return nil, err
	}
	s := p.s
	start := p.i
	// Fast path: no escapes and valid UTF-8 means the value is the bytes
	// between the quotes.
	plain := true
	i := start
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			p.i = i
			return nil, p.errorf("raw control character %#x in a string", c)
		}
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		if i == len(s) {
			p.i = i
			return nil, p.errorf("string never ends")
		}
		p.i = i + 1
		return s[start:i], nil
	}
	return p.unquoteSlow(start, i)
}

// unquoteSlow decodes the string that starts at start from i on, the first
// byte that needs more than copying.
func (p *eventParser) unquoteSlow(start, i int) ([]byte, error) {
	s := p.s
	b := append(p.scratch[:0], s[start:i]...)
	defer func() { p.scratch = b[:0] }()
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return b, nil
		case c < 0x20:
			p.i = i
			return nil, p.errorf("raw control character %#x in a string", c)
		case c == '\\':
			if i+1 >= len(s) {
				p.i = i
				return nil, p.errorf("string never ends")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					p.i = i
					return nil, p.errorf("bad \\u escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A high surrogate followed by an escaped low one is
					// one rune; anything else is a lone surrogate, which
					// encoding/json turns into U+FFFD.
					r2, ok := rune(-1), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				p.i = i
				return nil, p.errorf("bad escape \\%c", e)
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	p.i = i
	return nil, p.errorf("string never ends")
}

// hex4 decodes the four hex digits of a \u escape at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
