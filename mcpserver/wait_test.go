package mcpserver

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testwait"
)

// The tests' one poll helper. It is for what nothing signals to the test: a
// long poll parking in the registry (waitParked), the server's goroutines
// ending.
// The helper is internal/testwait's, under this package's names.

func eventually(t testing.TB, cond func() bool) bool { return testwait.Eventually(t, cond) }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}
