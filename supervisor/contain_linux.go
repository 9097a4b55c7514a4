package supervisor

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// intoCgroup starts the process inside cg (clone3's CLONE_INTO_CGROUP), so
// that nothing it does comes before it is held.
func intoCgroup(attr *syscall.SysProcAttr, cg *confine.Cgroup) {
	attr.UseCgroupFD, attr.CgroupFD = true, cg.FD()
}

// parentPID is field 4 of /proc/PID/stat.
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f, err := statField(b, 4)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(f))
}

// reapable reports whether the sandbox helper can hold an agent as a child
// subreaper here: Linux can.
func reapable() bool { return true }
