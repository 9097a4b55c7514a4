package vt

import (
	"strings"
	"testing"
)

func TestTitle(t *testing.T) {
	tests := []struct {
		name  string
		input string
		title string
	}{
		{"OSC 0 with BEL", "\x1b]0;hello\x07", "hello"},
		{"OSC 2 with ST", "\x1b]2;world\x1b\\", "world"},
		{"UTF-8", "\x1b]2;日本 ✳ Claude\x07", "日本 ✳ Claude"},
		{"invalid UTF-8", "\x1b]2;a\xffb\x07", "a\uFFFDb"},
		{"OSC 1 is the icon name", "\x1b]2;t\x07\x1b]1;icon\x07", "t"},
		{"empty", "\x1b]2;t\x07\x1b]2;\x07", ""},
		{"no parameter", "\x1b]2;t\x07\x1b]hello\x07", "t"},
		{"CAN aborts", "\x1b]2;t\x07\x1b]2;x\x18", "t"},
		{"control characters are dropped", "\x1b]2;a\tb\x07", "ab"},
		{"ended by another sequence", "\x1b]2;t\x1b[1mx", "t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 20, 2, tt.input)
			if got := term.Title(); got != tt.title {
				t.Errorf("Title = %q; want %q", got, tt.title)
			}
			if got := term.Snapshot().Title; got != tt.title {
				t.Errorf("Snapshot().Title = %q; want %q", got, tt.title)
			}
		})
	}
}

// TestStringsAreConsumed checks that OSC, DCS, SOS, PM and APC strings
// leave nothing on the screen, and that text after them prints.
func TestStringsAreConsumed(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"hyperlink", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\"},
		{"clipboard", "\x1b]52;c;aGVsbG8=\x07"},
		{"shell integration", "\x1b]133;A\x07\x1b]133;B\x07"},
		{"cwd", "\x1b]7;file://host/home\x1b\\"},
		{"notification", "\x1b]9;done\x07\x1b]777;notify;a;b\x07"},
		{"palette", "\x1b]4;1;rgb:ff/00/00\x07\x1b]104\x07"},
		{"DCS", "\x1bP$q\"p\x1b\\"},
		{"DCS with BEL inside", "\x1bP1;2|\x07abc\x1b\\"},
		{"sixel", "\x1bPq#0;2;0;0;0#1!6~-\x1b\\"},
		{"SOS", "\x1bXsos\x1b\\"},
		{"PM", "\x1b^pm\x1b\\"},
		{"APC", "\x1b_Gf=100;AAAA\x1b\\"},
		{"CAN ends a DCS", "\x1bPdata\x18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerm(t, 20, 2, "a"+tt.input+"b")
			text := strings.ReplaceAll(term.Text(), "link", "")
			if strings.TrimSpace(text) != "ab" {
				t.Errorf("screen = %q; want \"ab\"", term.Text())
			}
		})
	}
}

// TestLongStringsAreCapped checks that a runaway string is consumed
// without growing memory past the cap, and that it still ends properly.
func TestLongStringsAreCapped(t *testing.T) {
	big := strings.Repeat("A", 1<<20)
	for _, tt := range []struct{ name, start, end string }{
		{"OSC title", "\x1b]2;", "\x07"},
		{"OSC clipboard", "\x1b]52;c;", "\x1b\\"},
		{"DCS", "\x1bP", "\x1b\\"},
		{"APC", "\x1b_", "\x1b\\"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			term := New(20, 2)
			write(t, term, tt.start)
			for range 4 {
				write(t, term, big)
			}
			if n := cap(term.p.osc); n > maxOSC*2 {
				t.Errorf("string buffer grew to %d bytes", n)
			}
			write(t, term, tt.end+"ok")
			wantText(t, term, "ok")
			if n := len(term.Title()); n > maxOSC {
				t.Errorf("title of %d bytes", n)
			}
		})
	}
}
