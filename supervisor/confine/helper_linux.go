package confine

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeAgent prepares this thread and execs path. Landlock restricts the
// thread that asks and what it execs; the thread is locked so that the
// restricted thread is the one that calls exec. (go-landlock's Restrict
// would restrict every thread, which a binary linked with cgo, as the app
// is for its GUI, cannot do.)
func becomeAgent(opts HelperOptions, path string, argv []string) error {
	runtime.LockOSThread()
	if opts.Session {
		if _, err := unix.Setsid(); err != nil {
			return fmt.Errorf("new session: %w", err)
		}
		if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
			return fmt.Errorf("take the terminal: %w", err)
		}
	}
	switch {
	case opts.Landlock != nil:
		if err := restrictThread(*opts.Landlock); err != nil {
			return err
		}
	case opts.Scope && LandlockABI() >= 6:
		if err := restrictScopes(); err != nil {
			return err
		}
	}
	if opts.Reap {
		return reap(path, argv)
	}
	return syscall.Exec(path, argv, os.Environ())
}
