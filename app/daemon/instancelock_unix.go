//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on path without waiting, held until
// release; errInstanceLocked when another process holds it.
func tryLock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the instance lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errInstanceLocked
		}
		return nil, fmt.Errorf("lock the instance: %w", err)
	}
	return func() { f.Close() }, nil // closing the file lets go of the lock
}
