package vt

// ring is the scrollback: the lines that scrolled off the top of the main
// screen, oldest first, at most max of them, each stored encoded (see
// encodeLine).
//
// It is a ring rather than a slice that drops its head because at 10,000
// lines a slices.Delete(lines, 0, 1) per line feed moves 10,000 headers for
// every line printed. Each slot keeps its backing array when the line in it
// is evicted, and the next line is encoded into that storage, so a terminal
// that has filled its scrollback prints without allocating.
type ring struct {
	// lines holds the slots; it grows up to max and then stays.
	lines [][]byte
	// start is the slot of the oldest line; n is how many lines are held.
	start, n int
	max      int
}

// push appends line as the newest line, evicting the oldest when full.
// Trailing blank cells (and spaces printed with the default pen) are not
// stored: a painter pads a short line with blanks anyway.
func (r *ring) push(line []Cell) {
	if r.max <= 0 {
		return
	}
	end := len(line)
	for end > 0 && isBlank(&line[end-1]) {
		end--
	}
	slot := r.next()
	r.lines[slot] = encodeLine(r.lines[slot][:0], line[:end])
}

// pushEncoded appends a line already encoded.
func (r *ring) pushEncoded(line []byte) {
	if r.max <= 0 {
		return
	}
	slot := r.next()
	r.lines[slot] = append(r.lines[slot][:0], line...)
}

// next makes room for a new newest line and returns its slot.
func (r *ring) next() int {
	if r.n < r.max {
		slot := r.start + r.n
		if slot >= r.max {
			slot -= r.max
		}
		if slot == len(r.lines) {
			r.lines = append(r.lines, nil)
		}
		r.n++
		return slot
	}
	slot := r.start
	r.start++
	if r.start == r.max {
		r.start = 0
	}
	return slot
}

// at returns the encoding of line i, 0 being the oldest. The slice is the
// ring's own.
func (r *ring) at(i int) []byte {
	slot := r.start + i
	if slot >= r.max {
		slot -= r.max
	}
	return r.lines[slot]
}

// popNewest removes the newest line and returns its encoding; the slice
// stays the ring's storage and is overwritten by the next push.
func (r *ring) popNewest() []byte {
	line := r.at(r.n - 1)
	r.n--
	return line
}

// clear forgets every line but keeps the storage for the lines to come.
func (r *ring) clear() {
	r.start, r.n = 0, 0
}

// isBlank reports whether c looks like an erased cell: nothing, or a space
// printed with the default pen.
func isBlank(c *Cell) bool {
	return (c.Rune == 0 || c.Rune == ' ') && uint32(c.Fg)|uint32(c.Bg)|uint32(c.Comb)|uint32(c.Attr) == 0 && c.Width == 1
}
