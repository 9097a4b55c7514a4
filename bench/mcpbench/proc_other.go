//go:build !linux

package main

import "time"

// childCPU is read from /proc on Linux only; elsewhere the child's CPU is
// unknown and the CPU columns of its rows stay empty.
func childCPU(pid int) (time.Duration, bool) { return 0, false }

// childRSS is read from /proc on Linux only.
func childRSS(pid int) (rss, peak uint64, ok bool) { return 0, 0, false }
