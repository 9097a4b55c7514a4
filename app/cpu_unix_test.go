//go:build unix

package app

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, every thread's: on a
// machine shared with other work, a benchmark's wall time swings with the
// load while its CPU time does not.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
