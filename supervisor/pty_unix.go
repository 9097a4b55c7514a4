//go:build unix

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
)

// ptyMaster is the controlling side of a terminal: the agent's output is
// read from it, its input written to it. ptySlave is the terminal side the
// programs run on. On Unix both are the files of a pty pair.
type (
	ptyMaster = *os.File
	ptySlave  = *os.File
)

// Process is a command running on a PTY as the leader of its own session
// (and so of its own process group), held with everything it starts by its
// box's process set (contain_unix.go).
type Process struct {
	cmd  *exec.Cmd
	tty  *os.File
	set  *procSet
	done chan struct{}
	// err is Wait's result; written before done is closed.
	err error
}

// openPTY opens a terminal pair of size cols×rows (0: 80×24).
func openPTY(cols, rows uint16) (master, slave *os.File, err error) {
	if cols == 0 || rows == 0 {
		cols, rows = 80, 24
	}
	master, slave, err = pty.Open()
	if err != nil {
		return nil, nil, err
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// startOn starts spec on an open terminal: slave becomes its standard
// input, output and error and its controlling terminal, and it leads a
// session (and so a process group) of its own. Several processes may run on
// one terminal this way, one after the other (a setup, then the agent):
// the caller keeps slave open between them so the reader of master does
// not see the end, and closes it once the last one has started. The
// Process shares master; only the last one's Close should be called.
func startOn(spec Spec, master, slave *os.File) (*Process, error) {
	cmd, set, err := spec.box.command(spec)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		set.release()
		return nil, fmt.Errorf("start %s on a pty: %w", spec.Path, err)
	}
	set.started(cmd.Process.Pid)
	p := &Process{cmd: cmd, tty: master, set: set, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		// The leader is gone: so is everything it started. A PID
		// namespace ends by itself with its first process; a cgroup is
		// emptied here.
		set.release()
		close(p.done)
	}()
	return p, nil
}

// PTY is the controlling side of the terminal.
func (p *Process) PTY() *os.File { return p.tty }

// PID is the child's process id, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Resize changes the terminal size; the child gets SIGWINCH.
func (p *Process) Resize(cols, rows uint16) error {
	if err := pty.Setsize(p.tty, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	return nil
}

// SignalGroup signals the agent the way its terminal would: an interrupt
// to the terminal's foreground process group (Ctrl-C), a terminate or a
// hangup to its whole session; a kill ends the whole process set, which
// holds whatever left the session.
func (p *Process) SignalGroup(sig syscall.Signal) error {
	return p.set.signal(p.tty, sig)
}

// Holds reports whether process pid belongs to this process's set.
func (p *Process) Holds(pid int) bool { return p.set.holds(pid) }

// Holder names what holds the process's set (HoldPIDNamespace…).
func (p *Process) Holder() string { return p.set.kind() }

// Close releases the terminal. The child, if still running, gets SIGHUP
// from the kernel when its controlling terminal goes away.
func (p *Process) Close() error { return p.tty.Close() }

// exitCode is Wait's answer once the child has exited: its exit code, -1
// when a signal killed it.
func (p *Process) exitCode() (int, error) {
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0, nil
	case errors.As(p.err, &ee):
		return ee.ExitCode(), nil
	}
	return 0, p.err
}

// exitSignal names the signal that killed the child, if one did.
func (p *Process) exitSignal() (string, bool) {
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String(), true
	}
	return "", false
}
