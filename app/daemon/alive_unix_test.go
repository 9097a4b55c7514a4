//go:build unix

package daemon

import "syscall"

// processAlive says whether pid names a process (signal 0 checks without
// sending).
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
