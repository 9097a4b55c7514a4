package asciicast

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// unplain8's lowest mark must fall on the first byte byteClass does not
// call plain, and there must be no mark when all are plain: each byte value
// in each of the eight places among plain neighbours, then random words,
// which mostly hold several such bytes at once.
func TestUnplain8(t *testing.T) {
	first := func(w [8]byte) int {
		for i, c := range w {
			if byteClass[c] != 'p' {
				return i
			}
		}
		return 8
	}
	check := func(w [8]byte) {
		t.Helper()
		m := unplain8(binary.LittleEndian.Uint64(w[:]))
		if got, want := bits.TrailingZeros64(m)/8, first(w); got != want {
			t.Fatalf("unplain8(%q) = %#x: first byte that is not plain at %d, want %d", w[:], m, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			w := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
			w[pos] = byte(c)
			check(w)
			// Next to the edges of the classes, where a borrow from
			// one byte's subtraction could spill into the next.
			for _, n := range []byte{0x00, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80} {
				w2 := w
				w2[(pos+1)%8] = n
				check(w2)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64()&0x7f7f7f7f7f7f7f7f|r.Uint64()&r.Uint64()&r.Uint64()&0x8080808080808080)
		check(w)
	}
}
