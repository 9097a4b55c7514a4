package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go runs on (sysconf(_SC_CLK_TCK) would need cgo).
const clockTicks = 100

// childCPU is the CPU time, user and system, process pid has used so far,
// from /proc/<pid>/stat, and whether it could be read.
func childCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// count fields from the last ')'. utime and stime are fields 14 and
	// 15, so the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}

// childRSS is process pid's resident set size now (VmRSS) and at its peak
// (VmHWM), in bytes, from /proc/<pid>/status.
func childRSS(pid int) (rss, peak uint64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	field := func(name string) (uint64, bool) {
		_, rest, found := bytes.Cut(b, []byte("\n"+name+":"))
		if !found {
			return 0, false
		}
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		f := bytes.Fields(line) // "12345 kB"
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(string(f[0]), 10, 64)
		return kb * 1024, err == nil
	}
	rss, ok1 := field("VmRSS")
	peak, ok2 := field("VmHWM")
	return rss, peak, ok1 && ok2
}
