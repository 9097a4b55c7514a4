//go:build unix

package benchrun

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time, user and system, this process has used: the
// cost of a call whatever else the machine runs.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
