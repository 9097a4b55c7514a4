package supervisor

import (
	"context"
	"syscall"
	"time"
)

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
