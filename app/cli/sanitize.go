package cli

// Text made safe to print to a terminal: what a packet, an agent or an MCP
// client wrote cannot move the cursor, recolour the screen or reverse what
// follows.

import (
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cell makes text fit one table cell: control characters (newlines and
// terminal escapes included) and bidirectional overrides become spaces or
// U+FFFD, and it is cut to max characters (0: no limit).
func cell(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unsafeRune(r):
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}

// block indents multi-line text by two spaces, keeping its line breaks and
// tabs but no other control character.
func block(s string) string {
	s = lines(s)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			b.WriteString("  ")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// lines keeps text's line breaks and tabs, and no other control character,
// without block's indent: for text whose columns matter, such as a diff.
func lines(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// toTerminal reports whether w is a terminal (a character device), where
// text from a repository or an agent is printed made safe; a pipe or a file
// gets it byte for byte.
func toTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// unsafeRune reports a character that changes how a terminal shows what
// follows: C0 and C1 controls (ESC starts every escape sequence) and the
// bidirectional embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// An agent's terminal output relayed to the person's terminal (agent
// attach) keeps everything a program needs to draw its screen (text,
// colours, cursor movement, modes) and loses what reaches beyond the
// screen: a clipboard write (OSC 52), a hyperlink (OSC 8; its text stays),
// a window title and its report back as input (OSC 0/1/2, CSI 20/21 t), a
// desktop notification (OSC 9, 99, 777), and every DCS, SOS, PM and APC
// string (tmux passthrough, kitty graphics, terminal queries). OSCs are
// allowed by number rather than refused: terminals keep adding ones that
// act (iTerm2's 1337 writes files, xterm's 50 changes the font), so only
// the colours a TUI sets or asks for pass.

// Bytes the filter reacts to.
const (
	bel = 0x07
	esc = 0x1b
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	c1  = 0xC2 // the first byte of U+0080–U+009F in UTF-8: the C1 controls
)

// maxHeldCSI bounds a control sequence held until its last byte, to tell
// a title report from the rest; a longer one is dropped (a program needs
// none so long, and padding must not hide a report).
const maxHeldCSI = 256

// maxHeldOSC bounds a colour OSC held until its end; a longer one is
// dropped as it comes, so an unterminated string costs no memory.
const maxHeldOSC = 8 << 10

type escState uint8

const (
	inText      escState = iota
	afterC1              // 0xC2 read: the next byte may make a C1 control
	afterEsc             // ESC read
	inCSI                // in a control sequence, held
	inCSIDrop            // in a control sequence too long to hold, dropped
	inString             // in an OSC, DCS, SOS, PM or APC string
	inStringC1           // in a string, 0xC2 read: ST (U+009C) if 0x9C follows
	inStringEsc          // in a string, ESC read: ST if '\' follows
)

// escapeFilter writes a terminal stream to w without the escapes that
// reach beyond the screen (see above). Its state carries over between
// writes, so a sequence split between two reads is still recognised, and
// is bounded: at most maxHeldOSC bytes are held. It never writes an ESC or
// a C1 introducer without the byte that follows it, so what it drops
// cannot join what comes next into a new sequence.
type escapeFilter struct {
	w     io.Writer
	state escState
	held  []byte // the sequence so far, while it may still be passed on
	// utf8Left is how many continuation bytes the last lead byte in text
	// still expects; a continuation byte without one is a stray C1 byte.
	utf8Left int
	// The string being read: an OSC (BEL ends it too); kept, held to be
	// passed on at its end; number, the OSC's number while its digits are
	// read (-1 after).
	osc, kept bool
	number    int
	out       []byte // reused output buffer
}

func newEscapeFilter(w io.Writer) *escapeFilter { return &escapeFilter{w: w} }

func (f *escapeFilter) Write(p []byte) (int, error) {
	out := f.out[:0]
	for _, b := range p {
		out = f.step(out, b)
	}
	if len(out) > 0 {
		if _, err := f.w.Write(out); err != nil {
			return 0, err
		}
	}
	if cap(out) <= 64<<10 {
		f.out = out
	}
	return len(p), nil
}

// step takes one byte and appends what may be passed on to out.
func (f *escapeFilter) step(out []byte, b byte) []byte {
	switch f.state {
	case inText:
		return f.text(out, b)
	case afterC1:
		f.state = inText
		switch b {
		case 0x9B: // CSI
			f.held, f.state = append(f.held, b), inCSI
		case 0x9D: // OSC
			f.startString(b, true)
		case 0x90, 0x98, 0x9E, 0x9F: // DCS, SOS, PM, APC
			f.startString(b, false)
		default:
			if b < 0x80 || b > 0xBF {
				// Not a continuation: 0xC2 was a broken character.
				return f.text(append(out, "\uFFFD"...), b)
			}
			out = append(out, c1, b)
		}
	case afterEsc:
		switch {
		case b == '[':
			f.held, f.state = append(f.held, b), inCSI
		case b == ']':
			f.startString(b, true)
		case b == 'P' || b == 'X' || b == '^' || b == '_':
			f.startString(b, false)
		case b == '\\' || b == can || b == sub:
			f.state = inText // a stray ST, or a cancelled escape
		case b == esc:
			// The second ESC starts over; the first is not passed on
			// alone, or it could join what follows a dropped string.
		case b < 0x20:
			out = append(out, b) // executed inside the escape
		case b < 0x80:
			out, f.state = append(out, esc, b), inText
		default:
			f.state = inText
			return f.text(out, b)
		}
	case inCSI, inCSIDrop:
		switch {
		case b >= 0x40 && b <= 0x7E: // the final byte
			if f.state == inCSI && !titleSequence(append(f.held, b)) {
				out = append(out, f.held...)
				out = append(out, b)
			}
			f.state = inText
		case b >= 0x20 && b <= 0x3F: // parameters and intermediates
			if f.state == inCSI && len(f.held) >= maxHeldCSI {
				f.state = inCSIDrop
			} else if f.state == inCSI {
				f.held = append(f.held, b)
			}
		case b == esc:
			f.held, f.state = append(f.held[:0], b), afterEsc
		case b == can || b == sub:
			f.state = inText
		case b < 0x20:
			out = append(out, b) // executed inside the sequence
		case b == 0x7F:
			// ignored inside a sequence
		default:
			f.state = inText
			return f.text(out, b)
		}
	case inString, inStringC1, inStringEsc:
		return f.string(out, b)
	}
	return out
}

// text passes b on, keeping ESC and 0xC2 for the byte that follows them and
// replacing a stray C1 byte, which a terminal reading 8-bit controls would
// act on.
func (f *escapeFilter) text(out []byte, b byte) []byte {
	switch {
	case b == esc || b == c1:
		f.utf8Left = 0
		f.held, f.state = append(f.held[:0], b), afterC1
		if b == esc {
			f.state = afterEsc
		}
		return out
	case b < 0x80:
		f.utf8Left = 0
	case b <= 0xBF: // a continuation byte
		if f.utf8Left == 0 && b <= 0x9F {
			return append(out, "\uFFFD"...)
		}
		f.utf8Left = max(f.utf8Left-1, 0)
	case b < 0xC2: // never a lead byte: C0 and C1 would make overlong forms
		f.utf8Left = 0
	case b <= 0xDF:
		f.utf8Left = 1
	case b <= 0xEF:
		f.utf8Left = 2
	case b <= 0xF4:
		f.utf8Left = 3
	default:
		f.utf8Left = 0
	}
	return append(out, b)
}

// startString begins an OSC (osc) or another string at b, the last byte of
// its introducer. Only an OSC can be kept, and only once its number is
// known.
func (f *escapeFilter) startString(b byte, osc bool) {
	f.held = append(f.held, b)
	f.state, f.osc, f.kept, f.number = inString, osc, osc, 0
	if !osc {
		f.number = -1
	}
}

// string takes a byte of a string: its end (BEL for an OSC, ST as ESC \ or
// U+009C) passes a kept OSC on whole; CAN, SUB, or an ESC that is not ST
// end it unpassed.
func (f *escapeFilter) string(out []byte, b byte) []byte {
	switch f.state {
	case inStringEsc:
		if b == '\\' {
			return f.endString(out, esc, b)
		}
		f.held, f.state = append(f.held[:0], esc), afterEsc
		return f.step(out, b)
	case inStringC1:
		f.state = inString
		if b == 0x9C {
			return f.endString(out, c1, b)
		}
		f.keepByte(c1)
	}
	switch {
	case b == esc:
		f.state = inStringEsc
	case b == c1:
		f.state = inStringC1
	case b == bel && f.osc:
		return f.endString(out, b)
	case b == can || b == sub:
		f.state = inText
	default:
		f.keepByte(b)
	}
	return out
}

// keepByte takes a byte of a string's body: the OSC's number, then (for
// an OSC kept) the colour spec, printable ASCII only.
func (f *escapeFilter) keepByte(b byte) {
	switch {
	case !f.kept:
		return
	case f.number >= 0 && b >= '0' && b <= '9' && f.number < 1000:
		f.number = f.number*10 + int(b-'0')
	case f.number >= 0 && b == ';':
		f.kept = keptOSC(f.number)
		f.number = -1
	case f.number >= 0 || b < 0x20 || b >= 0x7F || len(f.held) >= maxHeldOSC:
		f.kept = false
		return
	}
	if f.kept {
		f.held = append(f.held, b)
	}
}

// endString passes a kept OSC on with its terminator.
func (f *escapeFilter) endString(out []byte, term ...byte) []byte {
	f.state = inText
	if f.kept && (f.number < 0 || keptOSC(f.number)) {
		out = append(out, f.held...)
		out = append(out, term...)
	}
	return out
}

// keptOSC reports an OSC passed on: the colours a TUI sets or asks for,
// the palette (4, reset 104) and the foreground, background and cursor
// (10–12, reset 110–112).
func keptOSC(n int) bool {
	switch n {
	case 4, 104, 10, 11, 12, 110, 111, 112:
		return true
	}
	return false
}

// titleSequence reports a control sequence about the window's title: a
// report of it (CSI 20 t, CSI 21 t), which the terminal answers as typed
// input, or xterm's title modes (CSI > … t, CSI > … T).
func titleSequence(seq []byte) bool {
	final := seq[len(seq)-1]
	params := seq[2 : len(seq)-1] // after ESC [ or U+009B
	if len(params) > 0 && params[0] == '>' {
		return final == 't' || final == 'T'
	}
	if final != 't' {
		return false
	}
	n := 0
	for _, c := range params {
		if c < '0' || c > '9' || n > 1000 {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n == 20 || n == 21
}
