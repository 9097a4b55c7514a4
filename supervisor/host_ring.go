package supervisor

// outputRing keeps the newest limit bytes of an agent's output, for a
// client that attaches later: its catch-up. It grows as output comes (an
// idle agent costs what it printed, not the limit) and then wraps.
type outputRing struct {
	limit int
	buf   []byte // the bytes held; once len(buf) == limit it wraps at head
	head  int    // where the oldest byte is once full; 0 while growing
	total uint64 // bytes ever written: the stream offset of the next one
}

func newOutputRing(limit int) *outputRing { return &outputRing{limit: max(limit, 1)} }

// write adds p, dropping the oldest bytes past the limit.
func (r *outputRing) write(p []byte) {
	r.total += uint64(len(p))
	if len(p) > r.limit {
		p = p[len(p)-r.limit:]
	}
	if room := r.limit - len(r.buf); room > 0 {
		n := min(room, len(p))
		if len(r.buf)+n > cap(r.buf) {
			// Doubling as append does, but never past the limit.
			grown := make([]byte, len(r.buf), min(r.limit, max(2*cap(r.buf), len(r.buf)+n, 4096)))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		n := copy(r.buf[r.head:], p)
		p = p[n:]
		r.head = (r.head + n) % len(r.buf)
	}
}

// snapshot copies what the ring holds, oldest first, and returns the
// stream offset of its first byte.
func (r *outputRing) snapshot() ([]byte, uint64) {
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	out = append(out, r.buf[:r.head]...)
	return out, r.total - uint64(len(out))
}
