package vt

import (
	"strings"
	"testing"
)

func TestNotifications(t *testing.T) {
	long := strings.Repeat("x", 10000)
	tests := []struct {
		name   string
		writes []string
		want   Notification // Seq 0: no notification
	}{
		{"OSC 9 with BEL", []string{"\x1b]9;Claude needs your permission\x07"}, Notification{Body: "Claude needs your permission", Seq: 1}},
		{"OSC 9 with ST", []string{"\x1b]9;done\x1b\\"}, Notification{Body: "done", Seq: 1}},
		{"OSC 777 with BEL", []string{"\x1b]777;notify;Codex;Approve this command?\x07"}, Notification{Title: "Codex", Body: "Approve this command?", Seq: 1}},
		{"OSC 777 with ST", []string{"\x1b]777;notify;T;a;b\x1b\\"}, Notification{Title: "T", Body: "a;b", Seq: 1}},
		{"OSC 777 without body", []string{"\x1b]777;notify;only title\x07"}, Notification{Title: "only title", Seq: 1}},
		{"split across writes", []string{"\x1b", "]9", ";he", "llo", " wor", "ld\x1b", "\\"}, Notification{Body: "hello world", Seq: 1}},
		{"777 split at the ST", []string{"\x1b]777;notify;a;b\x1b", "\\after"}, Notification{Title: "a", Body: "b", Seq: 1}},
		{"split UTF-8", []string{"\x1b]9;caf\xc3", "\xa9\x07"}, Notification{Body: "café", Seq: 1}},
		{"oversize is capped", []string{"\x1b]9;" + long + "\x07"}, Notification{Body: strings.Repeat("x", MaxNotification-1) + "…", Seq: 1}},
		{"control characters stripped", []string{"\x1b]9;a\tb\u0085c\u202edone\x07"}, Notification{Body: "ab cdone", Seq: 1}},
		{"whitespace collapsed", []string{"\x1b]777;notify;  t  ;  x   y \x07"}, Notification{Title: "t", Body: "x y", Seq: 1}},
		{"invalid UTF-8", []string{"\x1b]9;a\xffb\x07"}, Notification{Body: "a\uFFFDb", Seq: 1}},
		{"ConEmu progress ignored", []string{"\x1b]9;4;1;50\x07", "\x1b]9;4;0;\x1b\\"}, Notification{}},
		{"other ConEmu subcommand ignored", []string{"\x1b]9;9;/home/me\x07"}, Notification{}},
		{"text starting with a number", []string{"\x1b]9;3 tests failed\x07"}, Notification{Body: "3 tests failed", Seq: 1}},
		{"empty ignored", []string{"\x1b]9;\x07", "\x1b]777;notify;;\x07"}, Notification{}},
		{"777 other than notify ignored", []string{"\x1b]777;precmd\x07"}, Notification{}},
		{"CAN aborts", []string{"\x1b]9;never\x18"}, Notification{}},
		{"the last one wins", []string{"\x1b]9;one\x07", "text", "\x1b]777;notify;two;2\x07"}, Notification{Title: "two", Body: "2", Seq: 2}},
		{"same text twice counts twice", []string{"\x1b]9;x\x07\x1b]9;x\x07"}, Notification{Body: "x", Seq: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := New(20, 2)
			for _, w := range tt.writes {
				write(t, term, w)
			}
			if got := term.Notification(); got != tt.want {
				t.Errorf("Notification = %+v; want %+v", got, tt.want)
			}
			if n := term.Bells(); n != 0 {
				t.Errorf("the BEL ending the string rang %d bells", n)
			}
			if strings.TrimSpace(strings.ReplaceAll(term.Text(), "after", "")) != "" && tt.name != "the last one wins" {
				t.Errorf("screen = %q; a notification prints nothing", term.Text())
			}
		})
	}
}
