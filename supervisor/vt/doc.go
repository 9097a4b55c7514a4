// Package vt is the terminal emulator behind Switchboard's live view of an
// agent: the supervisor feeds it everything an agent CLI prints on its PTY,
// and a painter on another goroutine draws the screen from a Snapshot.
//
// Agent CLIs print a lot and fast (a build log can arrive at 80 MB/s), so the
// emulator is built for throughput, and each choice is explained where it is
// made:
//   - a run of printable ASCII is stored into the current row in one tight
//     loop, with no per-byte dispatch (print.go);
//   - a screen is one block of cells with a row map, so scrolling rotates a
//     few int32s instead of moving cells, and per-row extents let a line that
//     scrolls off be trimmed and cleared without scanning its empty right
//     half (screen.go);
//   - scrollback is a ring of lines stored encoded — text plus colour
//     changes, ~10× smaller than cells — whose slots are reused, so a full
//     scrollback takes no allocation per line (scrollback.go, linecodec.go);
//   - a row written only left to right keeps its encoding up to date as it
//     is printed, so scrolling it off is one short copy (rowlog.go).
//
// It implements the xterm subset that shells, compilers, git and full-screen
// TUIs (Claude Code, Codex, Gemini CLI) use: cursor movement, scroll regions,
// the alternate screen, SGR colours up to 24-bit, wide (East Asian)
// characters and combining marks, DEC line drawing, and the replies a
// program waits for (DSR, DA, DECRQM). It deliberately leaves out what those
// programs do not need: reflow on resize, left/right margins (DECSLRM),
// double-width lines, sixel and other DCS payloads, and 8-bit C1 controls
// (in UTF-8 those bytes are continuation bytes).
//
// A Terminal can be handed to another process as output: WriteState
// writes the escape sequences that rebuild it, scrollback included, in a
// fresh Terminal (state.go).
package vt
