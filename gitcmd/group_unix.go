//go:build unix

package gitcmd

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// StopAsGroup makes cmd (not yet started) the leader of a process group of
// its own, and its context's end a SIGTERM to that whole group: git, and
// the tools that run git (gh), start hooks, credential helpers and pagers,
// and a cancel must reach those too. SIGTERM first, because git removes its
// lock files on it; after grace exec kills cmd and closes the pipes, so an
// orphan holding stdout open cannot keep Run from returning.
func StopAsGroup(cmd *exec.Cmd, grace time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
		return nil
	}
	cmd.WaitDelay = grace
}
