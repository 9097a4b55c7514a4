package daemon

import (
	"testing"
	"time"
)

// The tests' one poll helper. It is for what nothing signals to the test: an
// agent's screen, a session's state in the store, processes and files the
// daemon's agents leave or remove, a lease the expiry timer takes back.

// nearDeadline fires near the test's own deadline (go test -timeout), a
// tenth of what is left kept to report and clean up, and never when the
// test has none. A wait bounded by it takes longer on a loaded machine
// instead of failing: only what never happens fails it.
func nearDeadline(t testing.TB) (<-chan time.Time, func() bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			timer := time.NewTimer(time.Until(deadline) * 9 / 10)
			return timer.C, timer.Stop
		}
	}
	return nil, func() bool { return false }
}

// eventually looks at cond until it holds, again after a pause that grows
// from 1 ms to 50 ms, and reports whether it held before the test's
// deadline came near.
func eventually(t testing.TB, cond func() bool) bool {
	end, stop := nearDeadline(t)
	defer stop()
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 50*time.Millisecond) {
		select {
		case <-end:
			return cond()
		case <-time.After(pause):
		}
	}
	return true
}

// waitUntil is eventually that fails the test, saying what it waited for.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !eventually(t, cond) {
		t.Fatalf("waited until near the test's deadline for %s", what)
	}
}
