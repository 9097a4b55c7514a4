package supervisor

import (
	"context"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
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
			break
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	// What is left of the group goes too: a PID namespace's first
	// process shares bubblewrap's group and outlives bubblewrap's own
	// exit on the terminate (it ignores the signal), and the namespace
	// with it. The group's id cannot have been reused while any of it
	// lives, and a group already gone is not an error.
	return true, killGroup(pid, syscall.SIGKILL)
}

// EndLeftovers ends what an earlier run's agent of session id left in its
// cgroup leaves (a crash: nothing held them since) and removes the leaves.
// It reports whether it found any.
func (sv *Supervisor) EndLeftovers(id string) (bool, error) {
	parent := sv.support().Cgroup
	if parent == "" {
		return false, nil
	}
	n, err := confine.SweepCgroups(parent, id)
	return n > 0, err
}
