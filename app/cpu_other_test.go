//go:build !unix

package app

import "time"

// processCPU is not measured here: the benchmarks report wall time alone.
func processCPU() (time.Duration, bool) { return 0, false }
