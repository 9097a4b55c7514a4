package e2e

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testwait"
)

// The tests' one poll helper. It is for what nothing signals to a test
// outside the app: files the app writes, its processes and their children in
// /proc, its tray on the session bus, windows and the clipboard on the X
// server, a session's recorded screen, the store read through the CLI.
// Readiness lines in a process's own output are waited on as they come
// (proc.waitOutput).
// The helper is internal/testwait's, under this package's names.

func eventually(t testing.TB, cond func() bool) bool { return testwait.Eventually(t, cond) }

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}

func nearDeadline(t testing.TB) (<-chan time.Time, func() bool) { return testwait.NearDeadline(t) }

func poll(end <-chan time.Time, cond func() bool) bool { return testwait.Poll(end, cond) }
