package cli

import "golang.org/x/sys/unix"

// The termios requests, which Linux and the BSDs name apart.
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
