//go:build unix && !linux

package supervisor

import (
	"errors"
	"syscall"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// intoCgroup does nothing: cgroups are Linux's (and confine.NewCgroup
// fails first off Linux).
func intoCgroup(*syscall.SysProcAttr, *confine.Cgroup) {}

// parentPID is unknown here without /proc: a set is its process group.
func parentPID(int) (int, error) { return 0, errors.New("no /proc") }

// reapable is false: the helper's subreaper is Linux's (macOS has none).
func reapable() bool { return false }
