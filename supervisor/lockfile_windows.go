package supervisor

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive LockFileEx lock on path (the Windows flock),
// in Switchboard's runtime folder: two sessions starting at once must not
// each write the config from the same old copy. Claude Code does not take
// it (see the note in trust_claude.go); the lock is held for one read and
// one write.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	// The whole file, however long it grows: the lock is on a range.
	const all = ^uint32(0)
	h := windows.Handle(f.Fd())
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, all, all, new(windows.Overlapped)); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return func() {
		windows.UnlockFileEx(h, 0, all, all, new(windows.Overlapped))
		f.Close()
	}, nil
}
