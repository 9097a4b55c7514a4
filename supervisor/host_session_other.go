//go:build !unix

package supervisor

import (
	"context"
	"errors"
	"time"
)

// There is no agent host here yet (host_other.go): Config.Host refuses to
// launch, and Adopt finds nothing.

var errNoHost = errors.New("the agent host is not available on this system yet")

type hostLinks struct{}

type hostedAgent struct{ pid, host int }

func (sv *Supervisor) launchHosted(LaunchSpec, Spec, Confinement, string, []string, bool) (*Session, error) {
	return nil, errNoHost
}

// Adopt finds no host: there is none here.
func (sv *Supervisor) Adopt(context.Context, func(string) Adopted) ([]*Session, error) {
	return nil, nil
}

func (sv *Supervisor) closeHosts() {}

func (h *hostedAgent) Write(p []byte) (int, error) { return 0, errNoHost }
func (h *hostedAgent) resize(int, int) error       { return errNoHost }
func (h *hostedAgent) stop(context.Context, <-chan struct{}, time.Duration, bool) error {
	return errNoHost
}
func (h *hostedAgent) kill()          {}
func (h *hostedAgent) holds(int) bool { return false }
