package app

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testwait"
)

// The tests' one poll helper. It is for what nothing signals to the test:
// the tray's state and agents as its loop refreshes them, a window's reads
// and checks in flight, a session's screen.
// The helper is internal/testwait's, under this package's names.

func eventually(t testing.TB, cond func() bool) bool { return testwait.Eventually(t, cond) }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}
