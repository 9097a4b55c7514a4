package vt

import "unicode/utf8"

// The parser is the state machine of Paul Williams' DEC-compatible parser
// (vt100.net/emu/dec_ansi_parser), trimmed to what xterm programs send, with
// UTF-8 decoding in the ground state. All of its state lives in the
// Terminal, so a sequence or a character split across two Writes continues
// where the first Write stopped.

// pstate is a parser state.
type pstate uint8

const (
	stGround pstate = iota
	// stEscape follows ESC; stEscInter has seen intermediate bytes.
	stEscape
	stEscInter
	// stCSI collects parameters; stCSIInter has seen an intermediate;
	// stCSIIgnore swallows a malformed sequence up to its final byte.
	stCSI
	stCSIInter
	stCSIIgnore
	// stOSC collects an operating system command up to BEL or ST.
	stOSC
	// stString swallows DCS, SOS, PM and APC strings up to ST.
	stString
)

const (
	// maxParams is how many CSI parameters (subparameters included) are
	// kept; further ones are parsed and dropped.
	maxParams = 32
	// maxParamValue caps a parameter so that digits cannot overflow.
	maxParamValue = 65535
	// maxOSC caps the stored bytes of an OSC string; the rest is consumed
	// and dropped, so a runaway string cannot grow memory.
	maxOSC = 4096
)

// parser is the state carried between bytes and between Writes.
type parser struct {
	state pstate
	// pending holds the first bytes of a UTF-8 character cut off by the
	// end of a Write.
	pending  [utf8.UTFMax]byte
	npending int

	// params are the CSI parameters; n is the index of the one being read
	// (it reaches maxParams once they overflow). sub has bit i set when
	// parameter i followed a colon, i.e. is a subparameter of i-1.
	params [maxParams]int
	n      int
	sub    uint32
	// digits says a parameter byte was seen, which makes a later private
	// marker malformed.
	digits bool
	// marker is the private marker (< = > ?) or 0.
	marker byte
	// inter is the first intermediate byte and ninter their count.
	inter  byte
	ninter int

	osc []byte
}

// parse runs p through the state machine.
func (t *Terminal) parse(p []byte) {
	for len(p) > 0 {
		var n int
		switch t.p.state {
		case stGround:
			n = t.ground(p)
		case stEscape, stEscInter:
			n = t.escape(p[0])
		case stCSI, stCSIInter, stCSIIgnore:
			n = t.csi(p)
		case stOSC:
			n = t.oscString(p)
		default:
			n = t.ignoredString(p)
		}
		p = p[n:]
	}
}

// ground handles bytes in the ground state until p ends or an ESC leaves
// it, and returns how many it consumed.
func (t *Terminal) ground(p []byte) int {
	i := 0
	for i < len(p) {
		b := p[i]
		switch {
		case t.p.npending > 0:
			i += t.continueUTF8(p[i:])
		case b >= 0x20 && b < 0x7f:
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			t.printASCII(p[i:j])
			i = j
		case b == 0x1b:
			t.enterEscape()
			return i + 1
		case b < 0x20:
			t.execute(b)
			i++
		case b == 0x7f:
			i++
		default:
			i += t.startUTF8(p[i:])
		}
	}
	return i
}

// startUTF8 decodes the character starting at p[0] (a byte >= 0x80) and
// prints it, keeping its first bytes for the next Write if p ends early.
func (t *Terminal) startUTF8(p []byte) int {
	r, size := utf8.DecodeRune(p)
	if r == utf8.RuneError && size == 1 {
		if !utf8.FullRune(p) {
			// A valid beginning cut off by the end of the Write.
			t.p.npending = copy(t.p.pending[:], p)
			return len(p)
		}
		t.printRune(utf8.RuneError)
		return 1
	}
	t.printRune(r)
	return size
}

// continueUTF8 completes a character whose first bytes ended the previous
// Write. It decodes exactly as startUTF8 would have on the whole byte
// stream, so how the output was cut into Writes never changes the screen.
func (t *Terminal) continueUTF8(p []byte) int {
	var buf [utf8.UTFMax]byte
	have := copy(buf[:], t.p.pending[:t.p.npending])
	added := copy(buf[have:], p)
	seq := buf[:have+added]
	if !utf8.FullRune(seq) {
		copy(t.p.pending[have:], p[:added])
		t.p.npending += added
		return added
	}
	t.p.npending = 0
	r, size := utf8.DecodeRune(seq)
	if r == utf8.RuneError && size == 1 {
		// Invalid: the first byte is one U+FFFD, and the bytes after it
		// are read again on their own, as they would have been in one
		// Write. Those are continuation bytes, so they print as U+FFFD
		// too and cannot start a new pending character.
		t.printRune(utf8.RuneError)
		if have > 1 {
			t.ground(buf[1:have])
		}
		return 0
	}
	t.printRune(r)
	return size - have
}

// enterEscape starts an escape sequence, dropping a pending sequence.
func (t *Terminal) enterEscape() {
	t.p.state = stEscape
	t.p.inter, t.p.ninter = 0, 0
}

// collect records an intermediate byte.
func (t *Terminal) collect(b byte) {
	if t.p.ninter == 0 {
		t.p.inter = b
	}
	t.p.ninter++
}

// escape handles one byte after ESC.
func (t *Terminal) escape(b byte) int {
	switch {
	case b == 0x1b:
		t.enterEscape()
	case b == 0x18 || b == 0x1a:
		t.p.state = stGround
	case b < 0x20:
		t.execute(b)
	case b < 0x30:
		t.collect(b)
		t.p.state = stEscInter
	case b == 0x7f:
	case b >= 0x80:
		// Not part of any sequence: abandon it and read b as text.
		t.p.state = stGround
		return 0
	case t.p.state == stEscInter:
		t.p.state = stGround
		t.escDispatch(b)
	case b == '[':
		t.p.state = stCSI
		t.p.n, t.p.sub, t.p.digits, t.p.marker = 0, 0, false, 0
		t.p.params[0] = 0
		t.p.inter, t.p.ninter = 0, 0
	case b == ']':
		t.p.state = stOSC
		t.p.osc = t.p.osc[:0]
	case b == 'P' || b == 'X' || b == '^' || b == '_':
		t.p.state = stString
	default:
		t.p.state = stGround
		t.escDispatch(b)
	}
	return 1
}

// csi handles bytes of a control sequence until its final byte or the end
// of p, and returns how many it consumed.
func (t *Terminal) csi(p []byte) int {
	ps := &t.p
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch {
		case b >= '0' && b <= '9':
			if ps.state != stCSI {
				ps.state = stCSIIgnore
				continue
			}
			// All the digits of the parameter at once, kept in a
			// register rather than stored back per digit.
			v, j := 0, i
			if ps.n < maxParams {
				v = ps.params[ps.n]
			}
			for ; j < len(p) && p[j] >= '0' && p[j] <= '9'; j++ {
				v = min(v*10+int(p[j]-'0'), maxParamValue)
			}
			if ps.n < maxParams {
				ps.params[ps.n] = v
			}
			ps.digits = true
			i = j - 1
		case b == ';' || b == ':':
			if ps.state != stCSI {
				ps.state = stCSIIgnore
				continue
			}
			ps.digits = true
			if ps.n < maxParams {
				ps.n++
				if ps.n < maxParams {
					ps.params[ps.n] = 0
					if b == ':' {
						ps.sub |= 1 << ps.n
					}
				}
			}
		case b >= 0x3c && b <= 0x3f:
			if ps.state == stCSI && !ps.digits && ps.marker == 0 {
				ps.marker = b
			} else {
				ps.state = stCSIIgnore
			}
		case b >= 0x20 && b < 0x30:
			if ps.state != stCSIIgnore {
				t.collect(b)
				ps.state = stCSIInter
			}
		case b >= 0x40 && b < 0x7f:
			ignore := ps.state == stCSIIgnore
			ps.state = stGround
			if !ignore {
				t.csiDispatch(b)
			}
			return i + 1
		case b == 0x1b:
			t.enterEscape()
			return i + 1
		case b == 0x18 || b == 0x1a:
			ps.state = stGround
			return i + 1
		case b < 0x20:
			t.execute(b)
		case b >= 0x80:
			ps.state = stGround
			return i
		}
	}
	return len(p)
}

// nparams returns how many parameters the current sequence has (at least
// one: a sequence without any has a single default parameter).
func (ps *parser) nparams() int {
	return min(ps.n+1, maxParams)
}

// param returns parameter i, or def when it is missing or 0: for nearly
// every control sequence 0 means "the default".
func (ps *parser) param(i, def int) int {
	if i >= ps.nparams() || ps.params[i] == 0 {
		return def
	}
	return ps.params[i]
}

// isSub reports whether parameter i is a colon subparameter.
func (ps *parser) isSub(i int) bool {
	return i < maxParams && ps.sub&(1<<i) != 0
}

// oscString collects an OSC string up to BEL or ST (or the ESC of any other
// sequence, which ends it too).
func (t *Terminal) oscString(p []byte) int {
	for i, b := range p {
		switch {
		case b == 0x07:
			t.p.state = stGround
			t.oscDispatch(t.p.osc)
			return i + 1
		case b == 0x1b:
			// ST is ESC \: the backslash then is a harmless escape.
			t.oscDispatch(t.p.osc)
			t.enterEscape()
			return i + 1
		case b == 0x18 || b == 0x1a:
			t.p.state = stGround
			return i + 1
		case b < 0x20:
			// Other controls inside a string are ignored.
		default:
			if len(t.p.osc) < maxOSC {
				t.p.osc = append(t.p.osc, b)
			}
		}
	}
	return len(p)
}

// ignoredString swallows a DCS, SOS, PM or APC string up to ST. Nothing of
// it is stored, so its length costs nothing.
func (t *Terminal) ignoredString(p []byte) int {
	for i, b := range p {
		switch b {
		case 0x1b:
			t.enterEscape()
			return i + 1
		case 0x18, 0x1a:
			t.p.state = stGround
			return i + 1
		}
	}
	return len(p)
}
