package mcpserver

import "unicode/utf8"

// Bounds on what a caller's text can make the server store or say. Every
// string an agent sends that reaches the audit log or comes back in an
// error is cut to one of these first; the README lists them.
const (
	// maxMethodName is the longest method or tool name: SPEC §4 holds tool
	// names to 40 characters, so anything longer names nothing.
	maxMethodName = 40
	// maxIDLength is the longest object id kept from the arguments
	// (repository_id, packet_id, session_id, question_id); Switchboard's
	// own ids are under 32.
	maxIDLength = 64
)

// Clip cuts s to at most n bytes on a rune boundary, marking the cut with
// "…" (counted in n).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
