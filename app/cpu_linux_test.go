package app

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, every thread's: on a
// machine shared with other work, a benchmark's wall time swings with the
// load while its CPU time swings much less.
func processCPU() (time.Duration, bool) { return rusage(syscall.RUSAGE_SELF) }

// threadCPU is the CPU time the calling thread has used; the caller locks
// its goroutine to the thread (runtime.LockOSThread) for it to mean that
// goroutine's.
func threadCPU() (time.Duration, bool) { return rusage(syscall.RUSAGE_THREAD) }

func rusage(who int) (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
