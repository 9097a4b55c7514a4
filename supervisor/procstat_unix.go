//go:build unix

package supervisor

import (
	"errors"
	"fmt"
	"syscall"
)

// killGroup signals the process group led by pid. A group that is already
// gone is not an error.
func killGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d with %v: %w", pid, sig, err)
	}
	return nil
}
