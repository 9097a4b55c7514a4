//go:build !linux && !darwin && !windows

package supervisor

import (
	"errors"
	"fmt"
)

// ProcStart is known on Linux (/proc), macOS (sysctl) and Windows
// (GetProcessTimes); elsewhere it returns 0 and an error, and a crash
// would leave an agent running rather than stop a process it cannot tell
// from a newer one with the same pid.
func ProcStart(pid int) (uint64, error) {
	return 0, fmt.Errorf("read process %d start time: %w", pid, errors.ErrUnsupported)
}
