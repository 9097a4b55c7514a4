//go:build !windows

package control

import "os"

// ownerUID is the uid a peer must have: this process's.
func ownerUID() int { return os.Getuid() }

// restrictSocket makes the socket file itself owner-only: the folder is
// already 0700, the socket's own mode is the second lock.
func restrictSocket(path string) error { return os.Chmod(path, 0o600) }
