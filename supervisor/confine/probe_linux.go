package confine

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Support is what this machine offers for confining agents, asked of the
// kernel once at the supervisor's start: each mechanism that cannot be
// used says why, for the sessions' records.
type Support struct {
	// Bwrap is the bubblewrap that ran a trial sandbox; "" when none did,
	// and BwrapWhy says why (not installed, user namespaces refused).
	Bwrap, BwrapWhy string
	// Landlock is the kernel's Landlock ABI, 0 when it has none.
	Landlock int
	// Cgroup is the cgroup v2 folder agents' leaves are made in; "" when
	// none can be, and CgroupWhy says why.
	Cgroup, CgroupWhy string
}

// Probe finds what confines agents here. bwrap names the bubblewrap
// binary ("bwrap" looks on PATH; "-" means none is to be used). The trial
// sandbox uses the namespaces BwrapArgs asks for, so a kernel or an
// AppArmor rule that refuses them is found here and not at an agent's
// start.
func Probe(ctx context.Context, bwrap string) Support {
	var s Support
	s.Landlock = LandlockABI()
	if dir, err := CgroupParent(); err != nil {
		s.CgroupWhy = err.Error()
	} else {
		s.Cgroup = dir
	}
	switch path, err := exec.LookPath(bwrap); {
	case bwrap == "-":
		s.BwrapWhy = "bubblewrap is turned off"
	case err != nil:
		s.BwrapWhy = "bubblewrap is not installed (Debian and Ubuntu: apt install bubblewrap)"
	default:
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		args := []string{"--unshare-pid", "--unshare-ipc", "--unshare-uts",
			"--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"}
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			why := strings.TrimSpace(stderr.String())
			if why == "" {
				why = err.Error()
			}
			s.BwrapWhy = fmt.Sprintf("bubblewrap cannot make a sandbox here: %s", why)
			break
		}
		s.Bwrap = path
	}
	return s
}
