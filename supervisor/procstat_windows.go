package supervisor

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/switchboard-dev/switchboard/internal/proctree"
)

// ProcStart returns the creation time of process pid from GetProcessTimes
// (100 ns intervals since 1601): Windows has no /proc. With the pid it
// names one process for good: a pid is reused, a (pid, start) pair is not.
func ProcStart(pid int) (uint64, error) {
	start, err := proctree.StartTime(pid)
	if err != nil {
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	return start, nil
}

// killGroup is the Windows form of signalling a process group, for a pid
// this process did not start (a stale agent of an earlier run: its Job
// Object went with that run). SIGKILL ends pid and every process it
// started; any other signal is a CTRL_BREAK to the console process group
// pid leads (agents start with CREATE_NEW_PROCESS_GROUP), which reaches it
// only if it shares a console with us, so the kill after the grace is what
// an orphan can count on.
func killGroup(pid int, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		if err := proctree.KillTree(pid); err != nil {
			return fmt.Errorf("end process tree %d: %w", pid, err)
		}
		return nil
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil && !errors.Is(err, windows.ERROR_INVALID_HANDLE) {
		return fmt.Errorf("send CTRL_BREAK to process group %d: %w", pid, err)
	}
	return nil
}
