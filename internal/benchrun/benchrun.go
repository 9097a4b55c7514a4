// Package benchrun runs a benchmark's calls from many goroutines at once and
// reports the process's CPU time per call beside the wall time: on a
// loaded machine the wall time of a call says little about its cost.
package benchrun

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// Callers runs call from about n goroutines at once, the i-th calling
// with i, and reports the CPU this process used per call. RunParallel
// starts GOMAXPROCS × parallelism goroutines: n on 2 CPUs, a few more
// elsewhere, which then share an i.
func Callers(b *testing.B, n int, call func(i int) error) {
	b.SetParallelism((n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	defer func() { b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op") }()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)-1) % n
		for pb.Next() {
			if err := call(i); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
