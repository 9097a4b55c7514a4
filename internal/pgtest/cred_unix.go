//go:build unix

package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// credential is the user the server runs as.
type credential syscall.Credential

// nobody is the unprivileged user the server runs as under root.
func nobody() (*credential, error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("find an unprivileged user to run PostgreSQL as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user nobody: %w", err)
	}
	return &credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// chown gives path to the user.
func (c *credential) chown(path string) error { return os.Chown(path, int(c.Uid), int(c.Gid)) }

// apply runs cmd as the user; a nil credential runs it as ourselves.
func (c *credential) apply(cmd *exec.Cmd) {
	if c != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: (*syscall.Credential)(c)}
	}
}
