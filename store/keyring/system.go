package keyring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	gokeyring "github.com/zalando/go-keyring"
)

// DefaultTimeout is how long the app lets one OS keyring call run. A healthy
// keyring answers in milliseconds; a locked one that shows an unlock prompt,
// or a wedged D-Bus, may never answer.
const DefaultTimeout = 3 * time.Second

// backend is the OS keyring as plain functions, so that tests can put a
// keyring that never answers in its place without touching go-keyring's
// global (and not goroutine-safe) mock.
type backend struct {
	get func(service, user string) (string, error)
	set func(service, user, secret string) error
	del func(service, user string) error
}

// System is the OS keyring through go-keyring, with every call behind a hard
// timeout.
//
// go-keyring offers no way to cancel a call, and on Linux a call can block
// forever: godbus waits without a deadline for the session bus to answer, and
// holds its process-wide session-bus lock while it connects, so one wedged
// call blocks every later one too. System therefore runs each call in its own
// goroutine and abandons it when the timeout or the context ends. An
// abandoned goroutine leaks until go-keyring returns, which may be never. To
// bound that, while any abandoned call is still running, System fails every
// new call at once with ErrUnavailable instead of starting another goroutine:
// at most the calls that were already in flight when the keyring wedged can
// leak. Once the abandoned calls return, System tries the keyring again.
type System struct {
	timeout time.Duration
	b       backend

	mu      sync.Mutex
	state   string // "" (no call yet), "available", or "unavailable: <reason>"
	pending int    // abandoned calls that have not returned yet
}

var _ Keyring = (*System)(nil)

// NewSystem returns the OS keyring with each call limited to timeout.
// A timeout of zero or less means DefaultTimeout.
func NewSystem(timeout time.Duration) *System {
	return newSystem(timeout, backend{
		get: func(service, user string) (string, error) {
			if err := sessionBusCheck(); err != nil {
				return "", err
			}
			return gokeyring.Get(service, user)
		},
		set: func(service, user, secret string) error {
			if err := sessionBusCheck(); err != nil {
				return err
			}
			return gokeyring.Set(service, user, secret)
		},
		del: func(service, user string) error {
			if err := sessionBusCheck(); err != nil {
				return err
			}
			return gokeyring.Delete(service, user)
		},
	})
}

// sessionBusCheck stops go-keyring from autolaunching a D-Bus session bus.
// With no DBUS_SESSION_BUS_ADDRESS and no bus under /run/user/<uid>, godbus
// runs dbus-launch: that starts a dbus-daemon, and through it a
// gnome-keyring-daemon, which outlive the app; it sets
// DBUS_SESSION_BUS_ADDRESS in this process, for every agent started later;
// and the new keyring is locked with nobody to unlock it anyway.
func sessionBusCheck() error {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil // go-keyring does not use D-Bus there
	}
	return checkSessionBus(os.Getenv("DBUS_SESSION_BUS_ADDRESS"), fmt.Sprintf("/run/user/%d", os.Getuid()))
}

// checkSessionBus reports an error if godbus would have to autolaunch a bus,
// given the bus address from the environment and the user's runtime
// directory, where godbus looks next.
func checkSessionBus(addr, runDir string) error {
	if addr != "" && addr != "autolaunch:" {
		return nil
	}
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(runDir, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset, no %s/bus)", runDir)
}

func newSystem(timeout time.Duration, b backend) *System {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &System{timeout: timeout, b: b}
}

// Get returns the secret stored for service and user.
func (s *System) Get(ctx context.Context, service, user string) (string, error) {
	return s.do(ctx, "get", entry{service, user}, func() (string, error) {
		return s.b.get(service, user)
	})
}

// Set stores secret for service and user, replacing any earlier one.
func (s *System) Set(ctx context.Context, service, user, secret string) error {
	_, err := s.do(ctx, "set", entry{service, user}, func() (string, error) {
		return "", s.b.set(service, user, secret)
	})
	return err
}

// Delete removes the secret stored for service and user.
func (s *System) Delete(ctx context.Context, service, user string) error {
	_, err := s.do(ctx, "delete", entry{service, user}, func() (string, error) {
		return "", s.b.del(service, user)
	})
	return err
}

// Available reports whether the last call reached the keyring and no
// abandoned call is still running. It is false before the first call.
func (s *System) Available() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == "available" && s.pending == 0
}

// State describes the keyring for the status method and the UI: "unknown"
// before the first call, "available", or "unavailable: <short reason>".
func (s *System) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == "" {
		return "unknown"
	}
	return s.state
}

// do runs fn in a goroutine and waits for it, the timeout or ctx, whichever
// ends first.
func (s *System) do(ctx context.Context, op string, e entry, fn func() (string, error)) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("keyring %s %v: %w: %w", op, e, ErrUnavailable, err)
	}
	s.mu.Lock()
	if s.pending > 0 {
		state := s.state
		s.mu.Unlock()
		return "", fmt.Errorf("keyring %s %v: %w: an earlier call has not returned (%s)", op, e, ErrUnavailable, state)
	}
	s.mu.Unlock()

	type result struct {
		secret string
		err    error
	}
	done := make(chan result, 1) // buffered: an abandoned call must not block on send
	var returned, abandoned bool // guarded by s.mu
	go func() {
		secret, err := fn()
		s.mu.Lock()
		returned = true
		if abandoned {
			s.pending--
		}
		s.mu.Unlock()
		done <- result{secret, err}
	}()

	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	var cause error
	select {
	case r := <-done:
		return s.finish(op, e, r.secret, r.err)
	case <-timer.C:
		cause = fmt.Errorf("no answer within %v", s.timeout)
	case <-ctx.Done():
		cause = ctx.Err()
	}

	s.mu.Lock()
	if returned { // it answered just as we gave up
		s.mu.Unlock()
		r := <-done
		return s.finish(op, e, r.secret, r.err)
	}
	abandoned = true
	s.pending++
	s.state = "unavailable: " + cause.Error()
	s.mu.Unlock()
	return "", fmt.Errorf("keyring %s %v: %w: %w", op, e, ErrUnavailable, cause)
}

// finish maps go-keyring's answer to ours and records the keyring's state.
func (s *System) finish(op string, e entry, secret string, err error) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil:
		s.state = "available"
		return secret, nil
	case errors.Is(err, gokeyring.ErrNotFound):
		s.state = "available"
		return "", fmt.Errorf("keyring %s %v: %w", op, e, ErrNotFound)
	default:
		s.state = "unavailable: " + shortReason(err)
		return "", fmt.Errorf("keyring %s %v: %w: %w", op, e, ErrUnavailable, err)
	}
}

// shortReason returns the first line of err, cut to fit a status line.
func shortReason(err error) string {
	r, _, _ := strings.Cut(err.Error(), "\n")
	if rs := []rune(r); len(rs) > 100 {
		r = string(rs[:100]) + "…"
	}
	return r
}
