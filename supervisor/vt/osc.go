package vt

import (
	"bytes"
	"strconv"
	"strings"
)

// oscDispatch performs an operating system command "Ps;Pt". Only the title
// (0, 2) and desktop notifications (9, 777: osc_notify.go) are kept, and
// the colour queries (10, 11) are answered when the painter's colours are
// known (WithDefaultColors). Everything else agents send — hyperlinks (8),
// clipboard (52), shell marks (133), the working directory (7), palette
// changes (4) — is consumed
// and ignored: the painter has no use for them yet, and ignoring them is
// what a terminal without the feature does.
func (t *Terminal) oscDispatch(s []byte) {
	cmd, arg, _ := bytes.Cut(s, []byte{';'})
	ps, err := strconv.Atoi(string(cmd))
	if err != nil {
		return
	}
	switch ps {
	case 0, 2:
		title := strings.ToValidUTF8(string(arg), "\uFFFD")
		if title != t.title {
			t.title = title
			t.dirty = true
		}
	case 9, 777:
		t.notify(ps, arg)
	case 10, 11:
		t.colorQuery(ps, arg)
	}
}

// colorQuery answers OSC 10 (foreground) and 11 (background) queries. A
// program may chain them ("10;?;?" asks for both), which xterm answers one
// by one.
func (t *Terminal) colorQuery(ps int, arg []byte) {
	for _, q := range bytes.Split(arg, []byte{';'}) {
		if ps > 11 || !bytes.Equal(q, []byte{'?'}) {
			return
		}
		answer := t.fgQuery
		if ps == 11 {
			answer = t.bgQuery
		}
		if answer != "" {
			t.sendReply("\x1b]%d;%s\x1b\\", ps, answer)
		}
		ps++
	}
}
