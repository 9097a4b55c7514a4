// Package testwait is the tests' one poll helper, for what nothing signals
// to a test: files and processes in /proc, a screen that has stayed still,
// a window on the X server, a long poll parking in the registry. What does
// signal (a channel, a readiness line, a pidfd) is waited on directly.
//
// A wait is bounded by the test's own deadline (go test -timeout), not by
// a figure of its own: on a loaded machine it takes longer instead of
// failing, and only what never happens fails it.
package testwait

import (
	"testing"
	"time"
)

// NearDeadline fires near the test's own deadline, a tenth of what is left
// kept to report and clean up, and never when the test has none. stop
// releases its timer.
func NearDeadline(t testing.TB) (end <-chan time.Time, stop func() bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			timer := time.NewTimer(time.Until(deadline) * 9 / 10)
			return timer.C, timer.Stop
		}
	}
	return nil, func() bool { return false }
}

// Eventually looks at cond until it holds, and reports whether it held
// before the test's deadline came near.
func Eventually(t testing.TB, cond func() bool) bool {
	end, stop := NearDeadline(t)
	defer stop()
	return Poll(end, cond)
}

// Poll looks at cond until it holds or end fires, again after a pause that
// grows from 1 ms to 50 ms, and reports whether it held. A bound of its
// own is for a wait that may give up without failing.
func Poll(end <-chan time.Time, cond func() bool) bool {
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 50*time.Millisecond) {
		select {
		case <-end:
			return cond()
		case <-time.After(pause):
		}
	}
	return true
}

// Until is Eventually that fails the test, saying what it waited for.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Eventually(t, cond) {
		t.Fatalf("waited until near the test's deadline for %s", what)
	}
}
