package supervisor

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testwait"
)

// The tests' one poll helper. It is for what nothing signals to the test: a
// status read off a screen that has stayed still for a while, threads'
// priorities and processes in /proc (a setup's background process, a killed
// process group, whose zombies do not count).
// The helper is internal/testwait's, under this package's names.

func eventually(t testing.TB, cond func() bool) bool { return testwait.Eventually(t, cond) }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}

func nearDeadline(t testing.TB) (<-chan time.Time, func() bool) { return testwait.NearDeadline(t) }
