package control

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the control socket is an AF_UNIX socket too (Windows 10 1803
// and later). Two guards stand in for the Unix ones:
//   - The file: it lives in the runtime folder under %LOCALAPPDATA%, whose
//     ACL (inherited from the user profile) lets in only the user, SYSTEM
//     and Administrators; connecting needs write access to the socket
//     file. Mode bits mean nothing there (os.Chmod only sets read-only),
//     so restrictSocket does not touch them.
//   - The peer: there are no uids, so getPeerUID asks the socket for the
//     peer's pid (SIO_AF_UNIX_GETPEERPID) and compares the user SID of
//     that process's token with ours. It answers ownerUID() for the same
//     user and ownerUID()+1 for another, so checkPeer is the same on every
//     OS; a peer that cannot be told is an error, refused.

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID, _WSAIOR(IOC_VENDOR, 256)
// in afunix.h: the pid of the process at the other end of an AF_UNIX
// socket.
const sioAFUnixGetPeerPID = 0x58000100

// ownerUID stands for "the user this process runs as".
func ownerUID() int { return 0 }

func restrictSocket(string) error { return nil }

func getPeerUID(fd int) (int, error) {
	var pid, n uint32
	if err := windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
		(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0); err != nil {
		return -1, fmt.Errorf("peer pid: %w", err)
	}
	peer, err := processUser(pid)
	if err != nil {
		return -1, err
	}
	me, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return -1, fmt.Errorf("own token user: %w", err)
	}
	if peer.User.Sid.Equals(me.User.Sid) {
		return ownerUID(), nil
	}
	return ownerUID() + 1, nil
}

// processUser is the user of process pid's token.
func processUser(pid uint32) (*windows.Tokenuser, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, fmt.Errorf("open peer process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, fmt.Errorf("token of peer process %d: %w", pid, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("user of peer process %d: %w", pid, err)
	}
	return u, nil
}
