package supervisor

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the uid and pid of the process at the other end of a Unix
// socket: LOCAL_PEERCRED and LOCAL_PEERPID.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, -1, fmt.Errorf("peer credentials: %w", err)
	}
	var cerr, perr error
	if err := raw.Control(func(fd uintptr) {
		var cred *unix.Xucred
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			uid = int(cred.Uid)
		}
		pid, perr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return -1, -1, fmt.Errorf("peer credentials: %w", err)
	}
	if cerr != nil || perr != nil {
		return -1, -1, fmt.Errorf("peer credentials: %v %v", cerr, perr)
	}
	return uid, pid, nil
}

// hardenHost does nothing here: macOS keeps other processes of the same
// user out of a process's memory unless they are entitled to debug.
func hardenHost() {}
