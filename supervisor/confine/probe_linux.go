package confine

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

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
