package launch

import (
	"fmt"
	"os"
	"os/exec"
)

// relaunch starts a new run of the same program with the same arguments
// and environment, and leaves this one to exit: Windows has no exec.
func relaunch() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the program: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Start()
}
