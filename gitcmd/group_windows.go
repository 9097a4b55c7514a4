package gitcmd

import (
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/switchboard-dev/switchboard/internal/proctree"
)

// StopAsGroup is the Windows form of the Unix process-group stop: cmd
// starts without a console window of its own (the tray build is a GUI
// program, and every git would flash one), and its context's end
// terminates cmd and everything it started (hooks, credential helpers,
// gh's git). Windows has no SIGTERM to send first: a console control event
// reaches only processes on the sender's console, and these have none we
// share, so git is ended at once and may leave an index.lock behind, which
// the next git names in its error. After grace exec closes the pipes, so
// an orphan holding stdout open cannot keep Run from returning.
func StopAsGroup(cmd *exec.Cmd, grace time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP}
	cmd.Cancel = func() error { return proctree.KillTree(cmd.Process.Pid) }
	cmd.WaitDelay = grace
}
