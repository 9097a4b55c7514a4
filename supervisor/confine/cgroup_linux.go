package confine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A cgroup v2 leaf holds every process an agent starts: a child inherits
// its parent's cgroup and cannot leave it without write access to another
// one's cgroup.procs, which the kernel checks against the common ancestor
// (owned by the person's service manager, not the agent). cgroup.kill ends
// all of them at once, forks in flight included.

// cgroupPrefix names Switchboard's leaves, so that a start finds the ones
// an earlier run left.
const cgroupPrefix = "switchboard-"

// CgroupParent returns the cgroup v2 folder of this process, under which
// agents' leaves are made, after checking that one can be made there.
func CgroupParent() (string, error) {
	mnt, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("read own cgroup: %w", err)
	}
	var rel string
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if rel == "" {
		return "", errors.New("this process is in no cgroup v2")
	}
	dir := filepath.Join(mnt, rel)
	probe, err := os.MkdirTemp(dir, cgroupPrefix+"probe-")
	if err != nil {
		return "", fmt.Errorf("make a cgroup under %s: %w", dir, err)
	}
	_, killErr := os.Stat(filepath.Join(probe, "cgroup.kill"))
	if err := os.Remove(probe); err != nil {
		return "", fmt.Errorf("remove probe cgroup: %w", err)
	}
	if killErr != nil {
		return "", fmt.Errorf("no cgroup.kill (Linux 5.14 or later): %w", killErr)
	}
	return dir, nil
}

// cgroup2Mount finds where the cgroup v2 hierarchy is mounted: the root of
// /sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on a hybrid
// one.
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID parent major:minor root mountpoint options... - fstype source
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if fs := strings.Fields(pre); len(fs) >= 5 && fs[3] == "/" {
			return fs[4], nil
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// Cgroup is one agent's leaf.
type Cgroup struct {
	dir string
	fd  int // the folder, open for clone3's CLONE_INTO_CGROUP
}

// NewCgroup makes the leaf for session id under parent.
func NewCgroup(parent, id string) (*Cgroup, error) {
	dir := filepath.Join(parent, cgroupPrefix+id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make cgroup: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("open cgroup: %w", err)
	}
	return &Cgroup{dir: dir, fd: fd}, nil
}

// FD is the leaf's folder, for SysProcAttr.CgroupFD: the process starts
// inside it, so nothing it does can happen before it is held.
func (c *Cgroup) FD() int { return c.fd }

// Holds reports whether process pid is in the leaf (or below it).
func (c *Cgroup) Holds(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return false
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		return false
	}
	rel := strings.TrimPrefix(c.dir, mnt)
	for _, line := range bytes.Split(b, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("0::")); ok {
			s := string(p)
			return s == rel || strings.HasPrefix(s, rel+"/")
		}
	}
	return false
}

// Kill ends every process in the leaf at once.
func (c *Cgroup) Kill() error {
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		return fmt.Errorf("kill cgroup: %w", err)
	}
	return nil
}

// Empty reports whether no process is left in the leaf.
func (c *Cgroup) Empty() bool {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
	return err != nil || bytes.Contains(b, []byte("populated 0"))
}

// Remove kills what is left, waits (at most wait) for the kernel to empty
// the leaf, and removes it.
func (c *Cgroup) Remove(wait time.Duration) error {
	unix.Close(c.fd)
	if c.Empty() {
		return os.Remove(c.dir)
	}
	if err := c.Kill(); err != nil {
		return err
	}
	// The kill is asynchronous: each process exits as it next runs.
	// cgroup.events is pollable for this change, but a bounded retry of
	// the removal is as good for the few milliseconds it takes.
	deadline := time.Now().Add(wait)
	for {
		err := os.Remove(c.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup: %w", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SweepCgroups ends the processes of every leaf an earlier run left under
// parent for session id (after a crash: its agent or setup, and whatever
// they started) and removes the leaves; it returns how many it found.
func SweepCgroups(parent, id string) (int, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0, fmt.Errorf("list cgroups: %w", err)
	}
	n := 0
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix+id+"-") {
			continue
		}
		n++
		c := &Cgroup{dir: filepath.Join(parent, e.Name()), fd: -1}
		errs = append(errs, c.Remove(2*time.Second))
	}
	return n, errors.Join(errs...)
}
