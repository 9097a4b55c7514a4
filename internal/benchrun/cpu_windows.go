package benchrun

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// processCPU is the CPU time, user and system, this process has used: the
// cost of a call whatever else the machine runs. Windows counts it in
// GetProcessTimes, in 100 ns units.
func processCPU(b *testing.B) time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		b.Fatal(err)
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
