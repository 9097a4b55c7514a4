//go:build !linux

package confine

import (
	"context"
	"errors"
	"time"
)

// Support is what this machine offers for confining agents: nothing yet
// off Linux (macOS's Seatbelt profile is made from the same policy, but
// not yet run).
type Support struct {
	Bwrap, BwrapWhy   string
	Landlock          int
	Cgroup, CgroupWhy string
}

// Probe reports that nothing confines agents on this system.
func Probe(context.Context, string) Support {
	return Support{BwrapWhy: "bubblewrap is Linux only", CgroupWhy: "cgroups are Linux only"}
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
