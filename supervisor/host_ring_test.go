package supervisor

import (
	"bytes"
	"testing"
)

// The ring holds the newest limit bytes, in order, and says where in the
// stream they start, however the writes fall across its edge.
func TestOutputRing(t *testing.T) {
	t.Parallel()
	var all []byte
	for i := range 1000 {
		all = append(all, byte('a'+i%26))
	}
	tests := []struct {
		name   string
		limit  int
		writes []int // sizes of successive writes of all
	}{
		{"under the limit", 100, []int{10, 20, 30}},
		{"exactly full", 60, []int{10, 20, 30}},
		{"wraps", 64, []int{50, 30, 7, 100, 1}},
		{"one write larger than the limit", 64, []int{3, 500}},
		{"many small writes", 17, []int{1, 1, 2, 3, 5, 8, 13, 21, 34}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newOutputRing(tt.limit)
			written := 0
			for _, n := range tt.writes {
				r.write(all[written : written+n])
				written += n
				got, off := r.snapshot()
				want := all[max(0, written-tt.limit):written]
				if !bytes.Equal(got, want) || off != uint64(written-len(want)) {
					t.Fatalf("after %d bytes: holds %q at %d, want %q at %d", written, got, off, want, written-len(want))
				}
				if cap(r.buf) > tt.limit {
					t.Fatalf("buffer of %d bytes, over the limit %d", cap(r.buf), tt.limit)
				}
			}
		})
	}
}
