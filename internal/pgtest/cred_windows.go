package pgtest

import (
	"errors"
	"os/exec"
)

// credential stands for a user to run the server as; on Windows the
// server runs as ourselves (os.Geteuid is -1 there, never root).
type credential struct{}

func nobody() (*credential, error) {
	return nil, errors.New("pgtest runs the server as another user on Unix only")
}

func (*credential) chown(string) error { return nil }
func (*credential) apply(*exec.Cmd)    {}
