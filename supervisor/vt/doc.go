// Package vt is the terminal emulator behind Switchboard's live view of an
// agent: the supervisor feeds it everything an agent CLI prints on its PTY,
// and a painter on another goroutine draws the screen from a Snapshot.
//
// Agent CLIs print a lot and fast (a build log can arrive at 80 MB/s), so the
// emulator is built for throughput: lines are separately allocated rows whose
// pointers rotate when the screen scrolls, scrollback is a ring that reuses
// the storage of the line it evicts, and a run of printable ASCII is copied
// into the current row in one tight loop. It implements the xterm subset that
// shells, compilers, git and full-screen TUIs (Claude Code, Codex, Gemini
// CLI) use: cursor movement, scroll regions, the alternate screen, SGR
// colours up to 24-bit, wide (East Asian) characters, DEC line drawing, and
// the replies a program waits for (DSR, DA).
//
// It deliberately leaves out what those programs do not need: reflow on
// resize, left/right margins (DECSLRM), double-width lines, sixel and other
// DCS payloads, and the 8-bit C1 controls (in UTF-8 those bytes are
// continuation bytes).
package vt
