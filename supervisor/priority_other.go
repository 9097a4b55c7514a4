//go:build !linux

package supervisor

// goInBackground runs fn on a new goroutine. Where the system lets a
// single thread have a priority of its own (Linux) the goroutine gets a
// lowered thread; elsewhere it runs like any other.
func goInBackground(fn func()) { go fn() }
