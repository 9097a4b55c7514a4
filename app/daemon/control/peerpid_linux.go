package control

import "golang.org/x/sys/unix"

// getPeerPID returns the pid of the process at the other end (as this
// process's PID namespace sees it), -1 when it cannot be told.
func getPeerPID(fd int) int {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1
	}
	return int(cred.Pid)
}
