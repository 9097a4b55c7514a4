package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ProcStart returns the start time of process pid as the kernel counts it
// (field 22 of /proc/PID/stat, clock ticks since boot). With the pid it
// names one process for good: a pid is reused, a (pid, start) pair is not.
// On systems without /proc it returns 0 and an error.
func ProcStart(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read process %d start time: %w", pid, err)
	}
	f, err := statField(b, 22)
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	start, err := strconv.ParseUint(string(f), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("process %d: start time: %w", pid, err)
	}
	return start, nil
}

// statField returns field n (numbered from 1, as in proc(5)) of the
// contents of a /proc stat file, n > 2.
func statField(stat []byte, n int) ([]byte, error) {
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: count fields after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, errors.New("malformed stat")
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is field 3 (state).
	if len(fields) < n-2 {
		return nil, errors.New("short stat")
	}
	return fields[n-3], nil
}
