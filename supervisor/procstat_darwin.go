package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ProcStart returns the start time of process pid as the kernel keeps it
// (kern.proc.pid's p_starttime, in microseconds since the epoch): darwin
// has no /proc. With the pid it names one process for good: a pid is
// reused, a (pid, start) pair is not.
func ProcStart(pid int) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, fmt.Errorf("read process %d start time: %w", pid, err)
	}
	// A pid that is not in use gives an empty record, not an error.
	if int(kp.Proc.P_pid) != pid {
		return 0, fmt.Errorf("read process %d start time: no such process", pid)
	}
	t := kp.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec), nil
}
