package proctree

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not exited (STILL_ACTIVE).
const stillActive = 259

// ErrExited is returned by StartTime for a process that has exited but
// whose handle someone still holds: it can be opened, yet it is gone.
var ErrExited = errors.New("process has exited")

// StartTime returns the creation time of process pid from GetProcessTimes,
// as a FILETIME (100 ns intervals since 1601) in one number. A pid is
// reused; a (pid, creation time) pair is not.
func StartTime(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return 0, fmt.Errorf("process %d exit code: %w", pid, err)
	}
	if code != stillActive {
		return 0, fmt.Errorf("process %d: %w", pid, ErrExited)
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, fmt.Errorf("process %d times: %w", pid, err)
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// Descendants returns the pids of every process pid started, and those
// they started, from one snapshot of the process table. A process whose
// parent pid is pid but which is older than pid is not its child: its real
// parent exited and pid was reused.
func Descendants(pid int) ([]int, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("snapshot processes: %w", err)
	}
	defer windows.CloseHandle(snap)
	children := map[int][]int{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID != 0 && e.ProcessID != e.ParentProcessID {
			children[int(e.ParentProcessID)] = append(children[int(e.ParentProcessID)], int(e.ProcessID))
		}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("walk processes: %w", err)
	}
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		parentStart, err := StartTime(parent)
		if err != nil {
			// An exited parent's children are still its tree (the
			// leader of a group that has exited): keep walking them.
			parentStart = 0
		}
		for _, c := range children[parent] {
			if seen[c] {
				continue
			}
			if cs, err := StartTime(c); err != nil || cs < parentStart {
				continue
			}
			seen[c] = true
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out, nil
}

// KillTree terminates pid and every descendant. The root goes first, so it
// starts nothing new while its children are ended. A process that is
// already gone is not an error.
func KillTree(pid int) error {
	tree, err := Descendants(pid)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range append([]int{pid}, tree...) {
		if err := terminate(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// terminate ends one process with exit code 1.
func terminate(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return nil // no such process any more
		}
		return fmt.Errorf("open process %d to end it: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil && !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// ACCESS_DENIED is what terminating a process that is already
		// exiting gives.
		return fmt.Errorf("end process %d: %w", pid, err)
	}
	return nil
}
