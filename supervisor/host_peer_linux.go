package supervisor

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the uid and pid of the process at the other end of a Unix
// socket (the pid as this process's PID namespace sees it).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, -1, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, -1, fmt.Errorf("peer credentials: %w", err)
	}
	if cerr != nil {
		return -1, -1, fmt.Errorf("peer credentials: %w", cerr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// hardenHost keeps the person's other processes, agents among them, from
// reading the host's memory (every agent's environment, its token in it)
// through /proc or a debugger, as the app does for itself.
func hardenHost() {
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
