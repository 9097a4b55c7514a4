package supervisor

import (
	"fmt"
	"syscall"

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
// Object and its pseudo console went with that run). SIGKILL ends pid and
// every process it started. Nothing else can reach it: a console control
// event goes only to processes on the sender's console, and the orphan was
// on a pseudo console of the run that died, not on ours (and an event
// aimed at a group our console lacks is not worth the risk of reaching our
// own). So a terminate is nothing, and the kill after the grace is what an
// orphan can count on; most have ended already, with their console.
func killGroup(pid int, sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return nil
	}
	if err := proctree.KillTree(pid); err != nil {
		return fmt.Errorf("end process tree %d: %w", pid, err)
	}
	return nil
}
