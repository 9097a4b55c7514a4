//go:build !linux

package confine

import (
	"context"
	"errors"
	"os"
	"runtime"
	"time"
)

// Probe finds what confines agents off Linux: macOS's sandbox-exec, where
// it is installed; nothing elsewhere.
func Probe(context.Context, string) Support {
	s := Support{BwrapWhy: "bubblewrap is Linux only", CgroupWhy: "cgroups are Linux only"}
	if runtime.GOOS == "darwin" {
		if fi, err := os.Stat(SeatbeltPath); err == nil && fi.Mode().IsRegular() {
			s.Seatbelt = SeatbeltPath
		}
	}
	return s
}

// LandlockABI is 0: Landlock is Linux only.
func LandlockABI() int { return 0 }

// Cgroup is a cgroup v2 leaf, which only Linux has.
type Cgroup struct{}

var errNoCgroup = errors.New("cgroups are Linux only")

func NewCgroup(string, string) (*Cgroup, error) { return nil, errNoCgroup }
func (*Cgroup) FD() int                         { return -1 }
func (*Cgroup) Holds(int) bool                  { return false }
func (*Cgroup) Kill() error                     { return errNoCgroup }
func (*Cgroup) Empty() bool                     { return true }
func (*Cgroup) Remove(time.Duration) error      { return nil }
func SweepCgroups(string, string) (int, error)  { return 0, nil }
