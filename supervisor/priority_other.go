//go:build !linux

package supervisor

// runInBackground lowers the calling goroutine's priority where the
// system lets a single thread have its own; elsewhere it does nothing.
func runInBackground() {}
