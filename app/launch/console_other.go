//go:build !windows

package launch

// detachOwnConsole is for Windows (see console_windows.go): elsewhere a
// program started from the desktop has no terminal to close.
func detachOwnConsole() {}
