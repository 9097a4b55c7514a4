package asciicast

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
	"unicode/utf8"
)

// This file turns bytes into the JSON text of an event line without
// encoding/json: the PTY read loop calls Output for every chunk the child
// writes, so encoding appends into one reused buffer and allocates nothing
// once that buffer has grown.

// utf8Carry holds the start of a UTF-8 sequence that the previous chunk cut
// off, at most utf8.UTFMax-1 bytes, until the next chunk completes it.
type utf8Carry struct {
	buf [utf8.UTFMax - 1]byte
	n   int
}

const hexDigits = "0123456789abcdef"

// appendSeconds appends d as seconds with six decimals, a JSON number such
// as 12.034500. Microseconds are what asciinema writes and more than a
// player can show; truncating keeps non-decreasing durations non-decreasing.
func appendSeconds(b []byte, d time.Duration) []byte {
	us := int64(d / time.Microsecond)
	sec, frac := us/1e6, us%1e6
	b = appendUint(b, uint64(sec))
	var f [7]byte
	f[0] = '.'
	for i := 6; i >= 1; i-- {
		f[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, f[:]...)
}

func appendUint(b []byte, v uint64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// byteClass sorts the 256 byte values for appendEscaped: 'p' is plain ASCII
// that JSON takes as it is, 'e' must be escaped (C0 controls, '"' and '\\'),
// 'u' is part of a multi-byte UTF-8 sequence or invalid. A constant string
// rather than a [256]bool variable, so that there is no package-level state.
const byteClass = "" +
	"eeeeeeeeeeeeeeee" + // 0x00-0x0f
	"eeeeeeeeeeeeeeee" + // 0x10-0x1f
	"ppeppppppppppppp" + // 0x20-0x2f, '"' is 0x22
	"pppppppppppppppp" + // 0x30-0x3f
	"pppppppppppppppp" + // 0x40-0x4f
	"ppppppppppppeppp" + // 0x50-0x5f, '\\' is 0x5c
	"pppppppppppppppp" + // 0x60-0x6f
	"pppppppppppppppp" + // 0x70-0x7f, DEL is valid raw in JSON
	"uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu" +
	"uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu" + "uuuuuuuuuuuuuuuu"

// escapeLetter gives, for each byte appendEscaped escapes (all below 0x60),
// the letter of its short JSON escape, or 'u' for the \u00XX form.
const escapeLetter = "" +
	"uuuuuuuuutnuuruu" + // 0x00-0x0f: \t \n \r
	"uuuuuuuuuuuuuuuu" + // 0x10-0x1f
	"uu\"uuuuuuuuuuuuu" + // 0x20-0x2f: \"
	"uuuuuuuuuuuuuuuu" + // 0x30-0x3f
	"uuuuuuuuuuuuuuuu" + // 0x40-0x4f
	"uuuuuuuuuuuu\\uuu" // 0x50-0x5f: \\

// maxEscapedLen is the most one input byte can become: a control character
// as \u00XX. (An invalid byte becomes U+FFFD, three bytes.)
const maxEscapedLen = 6

// appendEscaped appends the JSON string body (no quotes) for p, a chunk of a
// byte stream. A UTF-8 sequence cut off at the end of p is saved in c and
// put in front of the next chunk. Every byte that is not part of a valid
// UTF-8 sequence becomes one U+FFFD.
//
// Terminal output from agents is dense with escape sequences, so plain runs
// are short: rather than appending runs (a memmove call each), the loop grows
// b once for the worst case and stores a word or a byte at a time.
func appendEscaped(b []byte, c *utf8Carry, p []byte) []byte {
	if c.n > 0 {
		b, p = appendCarried(b, c, p)
		if c.n > 0 {
			return b // p was too short to complete the sequence
		}
	}
	b = slices.Grow(b, maxEscapedLen*len(p))
	o := len(b)
	dst := b[:cap(b)]
	for i := 0; i < len(p); {
		ch := p[i]
		switch byteClass[ch] {
		case 'p':
			if i+8 > len(p) {
				dst[o] = ch
				o++
				i++
				continue
			}
			// Eight bytes at a time (text between escape sequences
			// runs for tens of bytes): stored before they are checked,
			// kept up to the first byte that is not plain, which is
			// never this one. The grown b has room: o never passes 6*i.
			v := binary.LittleEndian.Uint64(p[i:])
			binary.LittleEndian.PutUint64(dst[o:], v)
			k := 8
			if m := unplain8(v); m != 0 {
				k = bits.TrailingZeros64(m) / 8
			}
			i += k
			o += k
		case 'e':
			if l := escapeLetter[ch]; l != 'u' {
				dst[o], dst[o+1] = '\\', l
				o += 2
			} else {
				dst[o], dst[o+1], dst[o+2], dst[o+3] = '\\', 'u', '0', '0'
				dst[o+4], dst[o+5] = hexDigits[ch>>4], hexDigits[ch&0xf]
				o += 6
			}
			i++
		default:
			// Inline checks for the valid two- and three-byte sequences
			// (accents, CJK, box drawing); utf8.DecodeRune sorts out
			// the rest, including E0 and ED, whose second byte has a
			// narrower range.
			if ch&0xF0 == 0xE0 && ch != 0xE0 && ch != 0xED && i+2 < len(p) &&
				p[i+1]&0xC0 == 0x80 && p[i+2]&0xC0 == 0x80 {
				dst[o], dst[o+1], dst[o+2] = ch, p[i+1], p[i+2]
				o += 3
				i += 3
				continue
			}
			if ch >= 0xC2 && ch <= 0xDF && i+1 < len(p) && p[i+1]&0xC0 == 0x80 {
				dst[o], dst[o+1] = ch, p[i+1]
				o += 2
				i += 2
				continue
			}
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(p[i:]) {
					// A valid prefix cut off by the end of the chunk: it
					// is shorter than utf8.UTFMax, so it fits the carry.
					c.n = copy(c.buf[:], p[i:])
					return dst[:o]
				}
				o += copy(dst[o:], "\uFFFD")
				i++
				continue
			}
			o += copy(dst[o:], p[i:i+size])
			i += size
		}
	}
	return dst[:o]
}

// unplain8 marks, in the high bit of each byte, the bytes of v (in
// little-endian order) that are not plain (byteClass 'p'): at or above
// 0x80, below 0x20, '"' and '\\'. A mark above a marked byte may be false
// (a borrow runs on into the next byte), but the lowest mark is always
// true: its byte is the first one that is not plain.
func unplain8(v uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x, n uint64) uint64 { return (x - n*ones) &^ x & highs } // bytes < n, for n <= 0x80
	return v&highs | below(v, 0x20) | below(v^('"'*ones), 1) | below(v^('\\'*ones), 1)
}

// appendCarried finishes the sequence saved in c with the first bytes of p
// and returns the rest of p. If p is still too short, its bytes join the
// carry and the returned p is empty.
func appendCarried(b []byte, c *utf8Carry, p []byte) ([]byte, []byte) {
	// Decode from the joined stream carry+p one rune at a time until
	// the carried bytes are used up; that takes at most len(c.buf) steps.
	var joined [2*utf8.UTFMax - 1]byte
	carried := copy(joined[:], c.buf[:c.n])
	n := carried + copy(joined[carried:], p)
	c.n = 0
	pos := 0
	for pos < carried {
		s := joined[pos:n]
		if !utf8.FullRune(s) {
			// Only possible when all of p fit in joined: the stream so
			// far ends inside one sequence.
			c.n = copy(c.buf[:], s)
			return b, nil
		}
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[:size]...)
		}
		pos += size
	}
	return b, p[pos-carried:]
}

// flushCarry appends U+FFFD for each byte of a sequence that will never be
// completed.
func flushCarry(b []byte, c *utf8Carry) []byte {
	for range c.n {
		b = append(b, "\uFFFD"...)
	}
	c.n = 0
	return b
}

// AppendEvent appends ev to b as one line of a recording, newline included,
// for a line written without a Writer: a note put at the end of a file
// whose Writer failed, say. ev.Data is taken whole (a UTF-8 sequence cut
// off at its end is not completed later): each byte that is not part of a
// valid sequence becomes U+FFFD. A negative time is written as 0.
func AppendEvent(b []byte, ev Event) []byte {
	var c utf8Carry
	b = append(b, '[')
	b = appendSeconds(b, max(ev.Time, 0))
	b = append(b, ", \""...)
	b = flushCarry(appendEscaped(b, &c, []byte(ev.Type)), &c)
	b = append(b, "\", \""...)
	b = flushCarry(appendEscaped(b, &c, []byte(ev.Data)), &c)
	return append(b, "\"]\n"...)
}
