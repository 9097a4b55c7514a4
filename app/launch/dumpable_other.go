//go:build !linux

package launch

// notDumpable does nothing here: no /proc shows a process's environment.
func notDumpable() {}
