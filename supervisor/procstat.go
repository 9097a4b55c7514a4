package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
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

// StopStale stops the process group an earlier run of Switchboard started
// as pid, if that very process (same start time) is still alive: it was
// orphaned by a crash and nothing supervises it any more. It sends SIGTERM
// to the group, then SIGKILL after grace. It reports whether it found the
// process. A zero start never matches: without it the pid may be anyone's.
func StopStale(ctx context.Context, pid int, start uint64, grace time.Duration) (bool, error) {
	if pid <= 1 || start == 0 {
		return false, nil
	}
	if got, err := ProcStart(pid); err != nil || got != start {
		return false, nil
	}
	if err := killGroup(pid, syscall.SIGTERM); err != nil {
		return true, err
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if got, err := ProcStart(pid); err != nil || got != start {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true, killGroup(pid, syscall.SIGKILL)
}

// killGroup signals the process group led by pid. A group that is already
// gone is not an error.
func killGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d with %v: %w", pid, sig, err)
	}
	return nil
}
