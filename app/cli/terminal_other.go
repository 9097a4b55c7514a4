//go:build !linux && !darwin && !windows

package cli

import "os"

// isTerminal reports whether f is a character device other than the null
// device: the closest to a terminal without a termios call here.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
