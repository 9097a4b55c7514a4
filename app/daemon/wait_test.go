package daemon

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testwait"
)

// The tests' one poll helper. It is for what nothing signals to the test: an
// agent's screen, a session's state in the store, processes and files the
// daemon's agents leave or remove, a lease the expiry timer takes back.
// The helper is internal/testwait's, under this package's names.

func eventually(t testing.TB, cond func() bool) bool { return testwait.Eventually(t, cond) }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}
