//go:build !unix

package main

import "time"

// processCPU is not measured here; the CPU column stays empty.
func processCPU() (time.Duration, bool) { return 0, false }
