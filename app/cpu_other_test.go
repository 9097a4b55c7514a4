//go:build !linux

package app

import "time"

// processCPU and threadCPU are not measured here: the benchmarks report
// wall time alone.
func processCPU() (time.Duration, bool) { return 0, false }
func threadCPU() (time.Duration, bool)  { return 0, false }
