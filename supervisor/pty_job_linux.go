package supervisor

import "golang.org/x/sys/unix"

// ForegroundJob reports whether a job other than the terminal's session
// leader holds the terminal: an interactive shell gives each command it
// runs a process group of its own and the terminal to it, and takes the
// terminal back at its prompt. ok is false when the kernel does not say.
func (p *Process) ForegroundJob() (running, ok bool) {
	fd := int(p.tty.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil {
		return false, false
	}
	sid, err := unix.IoctlGetInt(fd, unix.TIOCGSID)
	if err != nil {
		return false, false
	}
	return pgrp != sid, true
}
