//go:build unix

package supervisor

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an flock on path, in Switchboard's runtime folder: two
// sessions starting at once must not each write the config from the same
// old copy. Claude Code does not take it (see the note at the top); the
// lock is held for one read and one write.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
