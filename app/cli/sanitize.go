package cli

// Text made safe to print to a terminal: what a packet, an agent or an MCP
// client wrote cannot move the cursor, recolour the screen or reverse what
// follows.

import (
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cell makes text fit one table cell: control characters (newlines and
// terminal escapes included) and bidirectional overrides become spaces or
// U+FFFD, and it is cut to max characters (0: no limit).
func cell(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unsafeRune(r):
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}

// block indents multi-line text by two spaces, keeping its line breaks and
// tabs but no other control character.
func block(s string) string {
	s = lines(s)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			b.WriteString("  ")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// lines keeps text's line breaks and tabs, and no other control character,
// without block's indent: for text whose columns matter, such as a diff.
func lines(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// toTerminal reports whether w is a terminal (a character device), where
// text from a repository or an agent is printed made safe; a pipe or a file
// gets it byte for byte.
func toTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// unsafeRune reports a character that changes how a terminal shows what
// follows: C0 and C1 controls (ESC starts every escape sequence) and the
// bidirectional embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}
