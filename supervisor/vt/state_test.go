package vt

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// replyLog collects what a terminal answers the program.
type replyLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *replyLog) add(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf.Write(p)
}

func (r *replyLog) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.buf.String()
	r.buf.Reset()
	return s
}

// restored is a terminal rebuilt from another's state, and what the state
// could not carry.
type restored struct {
	term    *Terminal
	replies *replyLog
	loss    stateLoss
	size    int
}

// restore writes a's state to a fresh terminal of its size and scrollback
// limit, cut into chunks of random size (the stream crosses a socket).
func restore(t *testing.T, a *Terminal, rng *rand.Rand) restored {
	t.Helper()
	a.mu.Lock()
	state, loss := a.appendState(nil)
	cols, rows, keep := a.cols, a.rows, a.sb.max
	a.mu.Unlock()
	if public := a.AppendState(nil); !bytes.Equal(public, state) {
		t.Fatal("AppendState differs from appendState")
	}
	var got bytes.Buffer
	if err := a.WriteState(&got); err != nil || !bytes.Equal(got.Bytes(), state) {
		t.Fatalf("WriteState = %v, %d bytes; want nil, %d", err, got.Len(), len(state))
	}
	r := restored{replies: new(replyLog), loss: loss, size: len(state)}
	r.term = New(cols, rows, WithScrollback(keep), WithReply(r.replies.add))
	for p := state; len(p) > 0; {
		n := min(len(p), 1+rng.IntN(64))
		r.term.Write(p[:n])
		p = p[n:]
	}
	checkInvariants(t, r.term)
	if s := r.replies.take(); s != "" {
		t.Fatalf("restoring made the terminal reply %q", s)
	}
	return r
}

// stateDiff describes the first way b differs from a, or returns "". What
// loss says the state could not carry is left out.
func stateDiff(a, b *Terminal, loss stateLoss) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if a.cols != b.cols || a.rows != b.rows {
		return fmt.Sprintf("size %dx%d, restored %dx%d", a.cols, a.rows, b.cols, b.rows)
	}
	for _, s := range []struct {
		name   string
		sa, sb *screen
	}{{"main", &a.main, &b.main}, {"alt", &a.alt, &b.alt}} {
		for y := range a.rows {
			want := s.sa.line(y)
			if loss&lossForcedNarrow != 0 {
				want = forcedNarrow(want, a.cols)
			}
			if d := lineDiff(want, a.combs, s.sb.line(y), b.combs); d != "" {
				return fmt.Sprintf("%s screen row %d: %s", s.name, y, d)
			}
		}
	}
	if a.sb.n != b.sb.n {
		return fmt.Sprintf("%d scrollback lines, restored %d", a.sb.n, b.sb.n)
	}
	for i := range a.sb.n {
		want := decodeLine(nil, a.sb.at(i))
		if len(want) > a.cols && loss&lossScrollbackWidth != 0 {
			want = resizeLine(want, a.cols)
			for len(want) > 0 && isBlank(&want[len(want)-1]) {
				want = want[:len(want)-1]
			}
		}
		if loss&lossForcedNarrow != 0 {
			want = forcedNarrow(want, a.cols)
		}
		got := decodeLine(nil, b.sb.at(i))
		if len(want) != len(got) {
			return fmt.Sprintf("scrollback line %d has %d cells, restored %d", i, len(want), len(got))
		}
		if d := lineDiff(want, a.combs, got, b.combs); d != "" {
			return fmt.Sprintf("scrollback line %d: %s", i, d)
		}
	}
	if (a.scr == &a.alt) != (b.scr == &b.alt) {
		return "a different screen is shown"
	}
	type cursorState struct {
		X, Y        int
		WrapPending bool
		Pen         Cell
		Charsets    [2]charset
		GL          int
	}
	ca := cursorState{a.x, a.y, a.wrapPending, a.pen, a.charsets, a.gl}
	cb := cursorState{b.x, b.y, b.wrapPending, b.pen, b.charsets, b.gl}
	if ca != cb {
		return fmt.Sprintf("cursor %+v, restored %+v", ca, cb)
	}
	if !sameCursor(a.main.saved, b.main.saved, a.cols) {
		return fmt.Sprintf("main saved cursor %+v, restored %+v", a.main.saved, b.main.saved)
	}
	if loss&lossAltSaved == 0 && !sameCursor(a.alt.saved, b.alt.saved, a.cols) {
		return fmt.Sprintf("alt saved cursor %+v, restored %+v", a.alt.saved, b.alt.saved)
	}
	if a.modes != b.modes {
		return fmt.Sprintf("modes %+v, restored %+v", a.modes, b.modes)
	}
	if a.top != b.top || a.bot != b.bot {
		return fmt.Sprintf("scroll region %d..%d, restored %d..%d", a.top, a.bot, b.top, b.bot)
	}
	if !slices.Equal(a.tabs, b.tabs) {
		return fmt.Sprintf("tab stops %v, restored %v", a.tabs, b.tabs)
	}
	if a.title != b.title {
		return fmt.Sprintf("title %q, restored %q", a.title, b.title)
	}
	if loss&lossLastRune == 0 && a.lastRune != b.lastRune {
		return fmt.Sprintf("REP character %q, restored %q", a.lastRune, b.lastRune)
	}
	if pa, pb := parserState(&a.p), parserState(&b.p); pa != pb {
		return fmt.Sprintf("parser %s, restored %s", pa, pb)
	}
	return ""
}

// forcedNarrow returns line with each wide character that a one-column
// screen squeezed into one column replaced the way the state does.
func forcedNarrow(line []Cell, cols int) []Cell {
	line = slices.Clone(line)
	for x, c := range line {
		if c.Width == 1 && cols > 1 && runeWidth(c.Rune) == 2 {
			line[x].Rune = 0xfffd
		}
	}
	return line
}

// lineDiff describes the first cell where two lines differ, combining
// marks compared by their text (each terminal numbers them its own way).
func lineDiff(a []Cell, acombs []string, b []Cell, bcombs []string) string {
	for x := range min(len(a), len(b)) {
		ca, cb := a[x], b[x]
		ma, mb := acombs[ca.Comb], bcombs[cb.Comb]
		ca.Comb, cb.Comb = 0, 0
		if ca != cb || ma != mb {
			return fmt.Sprintf("column %d is %+v%q, restored %+v%q", x, ca, ma, cb, mb)
		}
	}
	return ""
}

// parserState describes what of a parser's state decides how the next
// bytes are read.
func parserState(p *parser) string {
	s := fmt.Sprintf("state %d", p.state)
	switch p.state {
	case stGround:
		s += fmt.Sprintf(" pending %q", p.pending[:p.npending])
	case stEscape, stEscInter:
		s += fmt.Sprintf(" inter %q×%d", p.inter, min(p.ninter, 2))
	case stCSI, stCSIInter:
		s += fmt.Sprintf(" marker %q params %v sub %b digits %v", p.marker, p.params[:p.nparams()], p.sub, p.digits)
		if p.state == stCSIInter {
			s += fmt.Sprintf(" inter %q×%d", p.inter, min(p.ninter, 2))
		}
	case stOSC:
		s += fmt.Sprintf(" osc %q", p.osc)
	}
	return s
}

// checkRestore restores a into a fresh terminal, requires it to be the
// same, then feeds more to both and requires them to stay the same and to
// answer the program the same. It returns what the state lost; after a
// loss that changes what later output does, only the restored state is
// compared.
func checkRestore(t *testing.T, a *Terminal, aReplies *replyLog, more []byte, rng *rand.Rand) stateLoss {
	t.Helper()
	aReplies.take()
	r := restore(t, a, rng)
	if d := stateDiff(a, r.term, r.loss); d != "" {
		t.Fatalf("restored from %d bytes of state (loss %b): %s", r.size, r.loss, d)
	}
	if r.loss&(lossAltSaved|lossLastRune) != 0 {
		// These differences change what later output does.
		return r.loss
	}
	a.Write(more)
	r.term.Write(more)
	if d := stateDiff(a, r.term, r.loss); d != "" {
		t.Fatalf("after %q: %s", more, d)
	}
	if ra, rb := aReplies.take(), r.replies.take(); ra != rb {
		t.Fatalf("after %q: replies %q, restored %q", more, ra, rb)
	}
	return r.loss
}

// TestWriteStateRandom is the property WriteState promises: from any
// state random output reaches, cut at any byte (mid-sequence, mid-UTF-8),
// sometimes resized, the restored terminal is the same, and stays the
// same under the same further output.
func TestWriteStateRandom(t *testing.T) {
	cases, lossy := 3000, 0
	byKind := map[stateLoss]int{}
	if testing.Short() {
		cases = 300
	}
	for seed := range cases {
		rng := rand.New(rand.NewPCG(uint64(seed), 33))
		cols, rows := 1+rng.IntN(24), 1+rng.IntN(9)
		if seed%7 == 0 {
			cols, rows = 1+rng.IntN(3), 1+rng.IntN(3)
		}
		aReplies := new(replyLog)
		a := New(cols, rows, WithScrollback([]int{0, 3, 40}[rng.IntN(3)]), WithReply(aReplies.add))
		out := genOutput(rng, 10+rng.IntN(300), cols, rows)
		if rng.IntN(4) == 0 {
			a.Write(out[:len(out)/2])
			a.Resize(1+rng.IntN(24), 1+rng.IntN(9))
			out = out[len(out)/2:]
		}
		a.Write(out[:rng.IntN(len(out)+1)])
		if loss := checkRestore(t, a, aReplies, genOutput(rng, 200, cols, rows), rng); loss != 0 {
			lossy++
			byKind[loss]++
		}
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
	// What the state cannot carry is rare: it takes a narrowed screen, a
	// REP character since overwritten, or a pending wrap over an erased
	// cell. Random output reaches those far more often than programs do.
	t.Logf("%d of %d states restored with a loss, by kind %v", lossy, cases, byKind)
	if lossy > cases/5 {
		t.Errorf("%d of %d states restored with a loss", lossy, cases)
	}
}

// FuzzWriteState is the same property for output the fuzzer invents, cut
// at any byte.
func FuzzWriteState(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 33))
	for i := range 8 {
		f.Add(genOutput(rng, 20+20*i, 12, 5), uint16(7*i), uint8(12), uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, cols, rows uint8) {
		aReplies := new(replyLog)
		a := New(1+int(cols%30), 1+int(rows%10), WithScrollback(20), WithReply(aReplies.add))
		at := int(cut) % (len(data) + 1)
		a.Write(data[:at])
		checkRestore(t, a, aReplies, data[at:], rand.New(rand.NewPCG(uint64(at), 1)))
	})
}

// TestWriteStateRecordings restores real programs' output (vim, less,
// curses, readline, git log, the agent CLIs) cut at many points, at their
// size and smaller (so that lines scroll off, past a small scrollback
// limit), then feeds both terminals the rest of the recording: the
// situation of a client adopting a running agent.
func TestWriteStateRecordings(t *testing.T) {
	for _, rec := range recordings(t) {
		t.Run(rec.name, func(t *testing.T) {
			data, cols, rows := rec.data, rec.cols, rec.rows
			rng := rand.New(rand.NewPCG(uint64(len(data)), 33))
			for _, sz := range [][2]int{{cols, rows}, {cols, max(rows/3, 1)}, {cols/2 + 1, rows / 2}} {
				for i := range 24 {
					cut := i * len(data) / 23
					if i%2 == 1 {
						cut = rng.IntN(len(data) + 1)
					}
					aReplies := new(replyLog)
					a := New(sz[0], sz[1], WithScrollback(50), WithReply(aReplies.add))
					a.Write(data[:cut])
					if loss := checkRestore(t, a, aReplies, data[cut:], rng); loss != 0 {
						t.Errorf("%dx%d cut at %d: restored with loss %b", sz[0], sz[1], cut, loss)
					}
					if t.Failed() {
						t.Fatalf("%dx%d cut at %d", sz[0], sz[1], cut)
					}
				}
			}
		})
	}
}

// TestWriteStateCases names the states that are easy to get wrong, each
// checked by the same property as the random test, without loss.
func TestWriteStateCases(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"line wrapped and scrolled off", "0123456789abc\r\nline2\r\nline3\r\nline4", "\r\nmore\r\n"},
		{"wrap pending after the last column", "abcdefghij", "k"},
		{"wrap pending after a wide character", "abcdefgh日", "x\u0301"},
		{"wide character moved to the next line", "abcdefghi日", "z"},
		{"scroll region and origin mode", "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[?6h\x1b[2;4H", "x\n\ny\n\nz\x1b[6n"},
		{"alternate screen over a shell", "$ vim\r\n\x1b[1;32m\x1b[?1049h\x1b[2J\x1b[Htui\x1b[4;1H~", "\x1b[?1049lback"},
		{"empty cells in a background colour", "\x1b[44m\x1b[2K\x1b[5G\x1b[0mx\x1b[43m\x1b[3X", "\r\n\r\n\r\n\r\n"},
		{"spaces are not empty cells", "a    b\x1b[1;10H", "\x1b[1;3H\x1b[4P"},
		{"saved cursors on both screens", "ab\x1b[31m\x1b7\x1b[?1049h\x1b[3;3H\x1b(0\x1b7\x1b(B", "\x1b8q\x1b[?1049l\x1b8x"},
		{"modes", "\x1b[?1h\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?25l\x1b[4 q\x1b=\x1b[4h\x1b[?7l", "\x1b[?2004$pabcdefghijklmn"},
		{"tab stops", "\x1b[3g\x1b[4G\x1bH\x1b[7G\x1bH", "\ta\tb\tc"},
		{"REP after a cut", "xyz", "\x1b[3b"},
		{"cut inside a sequence", "ab\x1b[38;5", ";196mred"},
		{"cut inside a character", "ab\xe6\x97", "\xa5x"},
		{"cut inside a title", "\x1b]2;half a ti", "tle\x07"},
		{"charsets", "\x1b(0lqk\x1b)0\x0e", "lqk\x0fq"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aReplies := new(replyLog)
			a := New(10, 4, WithScrollback(20), WithReply(aReplies.add))
			write(t, a, tc.before)
			rng := rand.New(rand.NewPCG(1, 2))
			if loss := checkRestore(t, a, aReplies, []byte(tc.after), rng); loss != 0 {
				t.Errorf("restored with loss %b", loss)
			}
		})
	}
}

// TestWriteStateLoss checks that what the state cannot carry exactly is
// approximated as WriteState says.
func TestWriteStateLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t.Run("pending wrap over an erased cell", func(t *testing.T) {
		// SU leaves the wrap pending; the row it was set on has gone.
		a := newTerm(t, 5, 3, "\x1b[2;1Habcde\x1b[S")
		r := restore(t, a, rng)
		if r.loss != lossAltSaved {
			t.Fatalf("loss %b, want lossAltSaved", r.loss)
		}
		if d := stateDiff(a, r.term, r.loss); d != "" {
			t.Fatal(d)
		}
		write(t, a, "z")
		write(t, r.term, "z")
		wantText(t, r.term, a.Text())
	})
	t.Run("scrollback wider than the screen", func(t *testing.T) {
		a := newTerm(t, 10, 2, "0123456789\r\nab日\r\n\r\n")
		a.Resize(3, 2)
		r := restore(t, a, rng)
		if r.loss != lossScrollbackWidth {
			t.Fatalf("loss %b, want lossScrollbackWidth", r.loss)
		}
		if d := stateDiff(a, r.term, r.loss); d != "" {
			t.Fatal(d)
		}
		if got := r.term.ScrollbackText(0) + "|" + r.term.ScrollbackText(1); got != "012|ab" {
			t.Errorf("scrollback %q, want 012|ab", got)
		}
	})
}

// BenchmarkWriteState measures handing over a 200×50 terminal with a full
// scrollback of 10,000 lines of a coloured build log: WriteState (the time
// the terminal's lock is held, but for the final Write) with the size of
// its stream, and rebuilding a terminal from that stream.
func BenchmarkWriteState(b *testing.B) {
	a := New(200, 50, WithScrollback(10000))
	for stream := BenchStream(4 << 20); a.ScrollbackLen() < 10000; {
		a.Write(stream)
	}
	state := a.AppendState(nil)
	held := 0 // the scrollback as the ring stores it, for scale
	for i := range a.sb.n {
		held += len(a.sb.at(i))
	}
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(state)))
		for range b.N {
			if err := a.WriteState(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(state)), "state-bytes")
		b.ReportMetric(float64(held), "scrollback-bytes")
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(state)))
		for range b.N {
			r := New(200, 50, WithScrollback(10000))
			r.Write(state)
		}
	})
}
