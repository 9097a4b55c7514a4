//go:build unix

package launch

import (
	"fmt"
	"os"
	"syscall"
)

// relaunch replaces this process with a new run of the same program, with
// the same arguments and environment: the same pid, so a session manager
// or a terminal that started the app still holds it.
func relaunch() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the program: %w", err)
	}
	return syscall.Exec(exe, os.Args, os.Environ())
}
