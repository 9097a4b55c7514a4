package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// isTerminal reports whether f is a console (a pipe or a file has no
// console mode).
func isTerminal(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
