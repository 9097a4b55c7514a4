package vt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// trickyStream exercises everything that carries state between bytes:
// multi-byte and invalid UTF-8, every kind of sequence and string, wide
// characters at the edge, the alternate screen, scrolling.
func trickyStream() []byte {
	var b strings.Builder
	b.Write(BenchStream(48 << 10))
	b.WriteString("\x1b]2;日本 title\x07\x1b]0;other\x1b\\")
	b.WriteString("\x1bP1$r0m\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\")
	b.WriteString("é日本語😀e\u0301\ufe0f ok \xff\xfe\xc3\x28 \xe2\x82 \xf0\x9f\x98 tail\xed\xa0\x80")
	b.WriteString("\x1b[38:2::1:2:3;48;5;200;1;4:3mcolour\x1b[m\x1b[?2004h\x1b[?1;1000;1006h")
	b.WriteString("\x1b[5;20r\x1b[?6h\x1b[2;3Hregion\x1bM\x1bD\x1b[3L\x1b[2M\x1b[4S\x1b[2T\x1b[?6l\x1b[r")
	b.WriteString("\x1b(0lqqk\x1b(B\x1b)0\x0eqq\x0f\x1b[4hins\x1b[4l\x1b[3@\x1b[2P\x1b[5X\x1b[3b")
	for i := range 30 {
		fmt.Fprintf(&b, "\x1b[%d;%dH日本語%d", i%50+1, 190+i%11, i)
	}
	b.WriteString("\x1b7\x1b[?1049h\x1b[H\x1b[2Jalt 画面\x1b[10;10Hx\x1b[?1049l\x1b8")
	b.WriteString("\x1b[6n\x1b[c\x1b[>c\x1b[?2026$p\x1b[18t\x1b[?u\x1b[>1u\x1b[<u\x1b[ q\x1b[!p")
	b.WriteString("\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34;35m")
	b.WriteString("\x1b[99999999999999999999A\x1b[1;\x18\x1b[2\x1a\x1b\x1b[1m\x1b#8\x1b[H\x1bc after reset")
	return []byte(b.String())
}

// dump renders everything observable about term, so that two terminals can
// be compared.
func dump(term *Terminal) string {
	s := term.Snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "%dx%d cursor %+v alt %v title %q modes %+v\n", s.Cols, s.Rows, s.Cursor, s.AltScreen, s.Title, s.Modes)
	for _, line := range s.Lines {
		for _, c := range line {
			fmt.Fprintf(&b, "%s/%x/%x/%d/%x ", s.Grapheme(c), c.Fg, c.Bg, c.Width, c.Attr)
		}
		b.WriteByte('\n')
	}
	for i := range term.ScrollbackLen() {
		fmt.Fprintf(&b, "%q\n", term.ScrollbackText(i))
	}
	term.mu.Lock()
	fmt.Fprintf(&b, "pen %+v wrap %v region %d..%d state %d\n", term.pen, term.wrapPending, term.top, term.bot, term.p.state)
	term.mu.Unlock()
	return b.String()
}

// TestChunking feeds the same stream whole, byte by byte and in random
// pieces, and requires the same screen, scrollback and replies every time:
// how the PTY happens to cut the output must never show.
func TestChunking(t *testing.T) {
	stream := trickyStream()
	feed := func(chunks func(p []byte) int) (string, string) {
		var replies strings.Builder
		term := New(200, 50, WithScrollback(300), WithReply(func(p []byte) { replies.Write(p) }))
		for p := stream; len(p) > 0; {
			n := chunks(p)
			term.Write(p[:n])
			p = p[n:]
		}
		checkInvariants(t, term)
		return dump(term), replies.String()
	}
	want, wantReplies := feed(func(p []byte) int { return len(p) })
	check := func(name string, chunks func(p []byte) int) {
		got, gotReplies := feed(chunks)
		if got != want {
			t.Errorf("%s: the screen differs from one whole write\n%s", name, firstDiff(got, want))
		}
		if gotReplies != wantReplies {
			t.Errorf("%s: replies %q; want %q", name, gotReplies, wantReplies)
		}
	}
	check("byte by byte", func([]byte) int { return 1 })
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		check(fmt.Sprintf("random pieces, seed %d", seed), func(p []byte) int {
			return min(len(p), 1+rng.IntN(64))
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %.300s\n want %.300s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestRowLogsMatchCells feeds the same stream to a terminal that keeps row
// logs and one that encodes every scrolled line from its cells, and
// requires the same scrollback: the logs are only a shortcut.
func TestRowLogsMatchCells(t *testing.T) {
	stream := trickyStream()
	logged := New(200, 50, WithScrollback(1000))
	plain := New(200, 50, WithScrollback(1000))
	plain.main.logs = nil
	for _, term := range []*Terminal{logged, plain} {
		for p := stream; len(p) > 0; {
			n := min(len(p), 1000)
			term.Write(p[:n])
			p = p[n:]
		}
	}
	if logged.ScrollbackLen() < 100 {
		t.Fatalf("only %d lines of scrollback", logged.ScrollbackLen())
	}
	if logged.ScrollbackLen() != plain.ScrollbackLen() {
		t.Fatalf("ScrollbackLen %d vs %d", logged.ScrollbackLen(), plain.ScrollbackLen())
	}
	for i := range logged.ScrollbackLen() {
		if a, b := logged.ScrollbackLine(i), plain.ScrollbackLine(i); !slices.Equal(a, b) {
			t.Fatalf("scrollback line %d:\n logged %+v\n cells  %+v", i, a, b)
		}
	}
}
