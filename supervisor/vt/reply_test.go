package vt

import (
	"bytes"
	"testing"
)

// replies returns a terminal that records its replies in *got.
func replies(cols, rows int, got *[]string, opts ...Option) *Terminal {
	opts = append(opts, WithReply(func(p []byte) { *got = append(*got, string(p)) }))
	return New(cols, rows, opts...)
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"DSR status", "\x1b[5n", []string{"\x1b[0n"}},
		{"DSR cursor position", "\x1b[3;7H\x1b[6n", []string{"\x1b[3;7R"}},
		{"DSR cursor in the pending wrap", "\x1b[1;78Habc\x1b[6n", []string{"\x1b[1;80R"}},
		{"DSR cursor in origin mode", "\x1b[5;20r\x1b[?6h\x1b[3;7H\x1b[6n", []string{"\x1b[3;7R"}},
		{"DSR cursor without origin mode", "\x1b[5;20r\x1b[3;7H\x1b[6n", []string{"\x1b[3;7R"}},
		{"DSR in origin mode after DECRC above the region", "\x1b[2;20r\x1b[?6h\x1b7\x1b[5;20r\x1b8\x1b[6n", []string{"\x1b[1;1R"}},
		{"DECXCPR", "\x1b[2;2H\x1b[?6n", []string{"\x1b[?2;2R"}},
		{"DA1", "\x1b[c", []string{"\x1b[?62;22c"}},
		{"DA1 with 0", "\x1b[0c", []string{"\x1b[?62;22c"}},
		{"DECID", "\x1bZ", []string{"\x1b[?62;22c"}},
		{"DA2", "\x1b[>c", []string{"\x1b[>1;10;0c"}},
		{"DA3 is not answered", "\x1b[=c", nil},
		{"DECRQM set", "\x1b[?2004h\x1b[?2004$p", []string{"\x1b[?2004;1$y"}},
		{"DECRQM reset", "\x1b[?2026$p", []string{"\x1b[?2026;2$y"}},
		{"DECRQM unknown", "\x1b[?4242$p", []string{"\x1b[?4242;0$y"}},
		{"DECRQM ANSI", "\x1b[4h\x1b[4$p", []string{"\x1b[4;1$y"}},
		{"text area size", "\x1b[18t", []string{"\x1b[8;24;80t"}},
		{"other window ops are ignored", "\x1b[14t\x1b[22;0t", nil},
		{"XTVERSION", "\x1b[>q", []string{"\x1bP>|switchboard-vt\x1b\\"}},
		{"kitty keyboard query is not answered", "\x1b[?u", nil},
		{"colour query without colours", "\x1b]11;?\x07", nil},
		{"two requests", "\x1b[5n\x1b[c", []string{"\x1b[0n", "\x1b[?62;22c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			term := replies(80, 24, &got)
			write(t, term, tt.input)
			if len(got) != len(tt.want) {
				t.Fatalf("replies = %q; want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("reply %d = %q; want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestColorQueries(t *testing.T) {
	var got []string
	term := replies(80, 24, &got, WithDefaultColors(RGBColor(0xd0, 0xd0, 0xd0), IndexedColor(0)))
	write(t, term, "\x1b]10;?\x1b\\\x1b]11;?\x07\x1b]10;?;?\x07")
	want := []string{
		"\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\",
		"\x1b]11;rgb:0000/0000/0000\x1b\\",
		"\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\",
		"\x1b]11;rgb:0000/0000/0000\x1b\\",
	}
	if len(got) != len(want) {
		t.Fatalf("replies = %q; want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("reply %d = %q; want %q", i, got[i], want[i])
		}
	}
}

// TestReplyIsCallersToKeep checks that the terminal does not reuse a
// reply's memory, since the caller queues it.
func TestReplyIsCallersToKeep(t *testing.T) {
	var kept [][]byte
	term := New(80, 24, WithReply(func(p []byte) { kept = append(kept, p) }))
	write(t, term, "\x1b[1;1H\x1b[6n\x1b[2;2H\x1b[6n")
	if len(kept) != 2 || !bytes.Equal(kept[0], []byte("\x1b[1;1R")) {
		t.Errorf("replies = %q", kept)
	}
}

func TestNoReplyFunction(t *testing.T) {
	term := newTerm(t, 80, 24, "\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[?1$p\x1b[18t")
	wantText(t, term, "")
}
