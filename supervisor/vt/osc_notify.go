package vt

import (
	"bytes"
	"strings"
	"unicode"
)

// Desktop notifications: an agent CLI that wants the person's attention
// (a permission prompt, a finished turn) may send OSC 9 (iTerm2's form:
// "9;text") or OSC 777 (urxvt's and VTE's: "777;notify;title;body"). The
// terminal keeps a count and the last one, so the supervisor can tell
// "the agent asked for attention" without reading the screen.
//
// ConEmu gives OSC 9 subcommands of its own ("9;4;state;percent" is a
// progress bar, which Windows Terminal and others adopted): a text that is
// a number followed by ';' is such a subcommand, not a notification.

// MaxNotification caps a notification's title and its body, in runes: it is
// shown in a desktop notification and a status line, not read as a document.
const MaxNotification = 200

// Notification is a desktop notification the program sent.
type Notification struct {
	// Title is OSC 777's title; empty for OSC 9, which has only a body.
	Title string
	Body  string
	// Seq numbers the notifications from 1, so a watcher can tell a new
	// one from the same text sent again.
	Seq uint64
}

// notify records an OSC 9 (ps 9) or OSC 777 (ps 777) notification.
func (t *Terminal) notify(ps int, arg []byte) {
	var title, body []byte
	switch ps {
	case 9:
		if isConEmuSubcommand(arg) {
			return
		}
		body = arg
	case 777:
		kind, rest, _ := bytes.Cut(arg, []byte{';'})
		if string(kind) != "notify" {
			return
		}
		title, body, _ = bytes.Cut(rest, []byte{';'})
	}
	n := Notification{Title: cleanNotification(title), Body: cleanNotification(body)}
	if n.Title == "" && n.Body == "" {
		return
	}
	t.notes++
	n.Seq = t.notes
	t.lastNote = n
}

// isConEmuSubcommand reports whether an OSC 9 text is one of ConEmu's
// numbered subcommands ("4;1;50" progress, "9;path" working directory…).
func isConEmuSubcommand(arg []byte) bool {
	num, _, found := bytes.Cut(arg, []byte{';'})
	if !found || len(num) == 0 {
		return false
	}
	for _, b := range num {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// cleanNotification makes text safe to show: valid UTF-8, no control
// characters (the parser already dropped C0 ones; C1 and others may
// remain), spaces collapsed, at most MaxNotification runes.
func cleanNotification(p []byte) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r), unicode.IsSpace(r):
			return ' '
		case unicode.Is(unicode.Cf, r) && r != '\u200d':
			return -1 // bidi overrides and other invisible formatting
		}
		return r
	}, strings.ToValidUTF8(string(p), "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxNotification {
		s = strings.TrimRight(string(r[:MaxNotification-1]), " ") + "…"
	}
	return s
}

// Notification returns the last desktop notification the program sent
// (OSC 9 or 777); its Seq is 0 when there has been none.
func (t *Terminal) Notification() Notification {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastNote
}

// CleanText makes text from an agent safe to show the way a notification's
// is (see MaxNotification): for what its CLI reports by other ways than
// its terminal (Claude Code's Notification hook).
func CleanText(s string) string { return cleanNotification([]byte(s)) }
