package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"golang.org/x/sys/unix"
)

// findProcs returns the pids whose command line holds mark.
func findProcs(t *testing.T, mark string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(mark)) && !bytes.Contains(b, []byte("sh\x00-c")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestStopEndsEscapedChildren starts an agent that leaves its process
// group two ways (a setsid child, a double fork), and checks each way of
// holding processes: the escaped children belong to the session (Owner)
// and are gone once Stop returns.
func TestStopEndsEscapedChildren(t *testing.T) {
	probed := confine.Probe(context.Background(), "bwrap")
	tests := []struct {
		name    string
		support confine.Support
		policy  bool
		holder  string
		skip    string
	}{
		{"pid namespace", probed, true, HoldPIDNamespace, probed.BwrapWhy},
		{"cgroup", confine.Support{Cgroup: probed.Cgroup}, false, HoldCgroup, probed.CgroupWhy},
		{"landlock and cgroup", confine.Support{Cgroup: probed.Cgroup, Landlock: probed.Landlock}, true, HoldCgroup, probed.CgroupWhy},
		{"subreaper", confine.Support{}, false, HoldSubreaper, ""},
		{"landlock and subreaper", confine.Support{Landlock: probed.Landlock}, true, HoldSubreaper, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip != "" && (tt.holder == HoldPIDNamespace && probed.Bwrap == "" || tt.holder == HoldCgroup && probed.Cgroup == "") {
				t.Skip(tt.skip)
			}
			sv, _, dir := newTestSupervisor(t, os.Environ())
			sv.cfg.Support = &tt.support
			wt, home := filepath.Join(dir, "wt"), filepath.Join(dir, "home")
			for _, d := range []string{wt, home} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			mark := fmt.Sprintf("30%d.%d", i, os.Getpid())
			script := fmt.Sprintf("setsid sleep %s & (sleep %s1 &) ; echo ready; exec sleep 1000", mark, mark)
			spec := LaunchSpec{SessionID: fmt.Sprintf("ses_contain%d", i), RepositoryID: "repo_1", Dir: wt,
				Profile: profile.Profile{ID: "sh", Name: "sh", Command: "sh", Args: []string{"-c", script}, Prompt: profile.PromptNone}}
			if tt.policy {
				spec.Policy = &confine.Policy{Home: home, Dir: wt, Writable: []string{wt}, Hidden: []string{sv.cfg.RuntimeDir}}
			}
			s, err := sv.Launch(spec)
			if err != nil {
				t.Fatal(err)
			}
			waitScreen(t, s, "ready")
			if got := s.Info().Confinement.Processes; got != tt.holder {
				t.Errorf("held by %q, want %q", got, tt.holder)
			}
			var pids []int
			eventually(t, func() bool { pids = findProcs(t, mark); return len(pids) >= 2 })
			if len(pids) != 2 {
				t.Fatalf("found %v running with %s, want the two children", pids, mark)
			}
			for _, pid := range pids {
				if id, ok := sv.Owner(pid); !ok || id != s.ID() {
					t.Errorf("Owner(%d) = %q, %v; want the session", pid, id, ok)
				}
			}
			if _, ok := sv.Owner(os.Getpid()); ok {
				t.Error("the supervisor's own process is said to be an agent's")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := s.Stop(ctx, false); err != nil {
				t.Fatal(err)
			}
			// The kernel ends a namespace's processes as its first one
			// exits, a moment after bubblewrap has: within the 2 s the
			// product promises past the grace.
			waitGone(t, pids)
		})
	}
}

// running reports whether pid is a process that still runs: a killed
// process is gone, or a zombie until its new parent reaps it.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st, _ := statField(b, 3)
	return string(st) != "Z" && string(st) != "X"
}

// What a crashed run's agent left is ended by the next start: a sandbox by
// its recorded pid (the whole namespace, though bubblewrap itself dies on
// the terminate first), a cgroup leaf by its session id.
func TestLeftoversOfACrash(t *testing.T) {
	probed := confine.Probe(context.Background(), "bwrap")
	ctx := context.Background()
	t.Run("pid namespace", func(t *testing.T) {
		if probed.Bwrap == "" {
			t.Skip(probed.BwrapWhy)
		}
		mark := fmt.Sprintf("401.%d", os.Getpid())
		dir := t.TempDir()
		c, err := confine.Check(confine.Policy{Home: t.TempDir(), Dir: dir, Writable: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		args := append(confine.BwrapArgs(c), "sh", "-c", "trap '' TERM; "+readyScript(mark))
		cmd := exec.Command(probed.Bwrap, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		startReady(t, cmd) // an earlier run's agent
		start, err := ProcStart(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if found, err := StopStale(ctx, cmd.Process.Pid, start, time.Second); !found || err != nil {
			t.Fatalf("StopStale = %v, %v", found, err)
		}
		waitGone(t, findProcs(t, mark))
	})
	t.Run("cgroup", func(t *testing.T) {
		if probed.Cgroup == "" {
			t.Skip(probed.CgroupWhy)
		}
		mark := fmt.Sprintf("402.%d", os.Getpid())
		cg, err := confine.NewCgroup(probed.Cgroup, "ses_crashed-1")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", readyScript(mark))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: cg.FD()}
		startReady(t, cmd)
		sv := New(Config{RuntimeDir: t.TempDir(), RecordingsDir: t.TempDir(), Support: &confine.Support{Cgroup: probed.Cgroup}})
		if found, err := sv.EndLeftovers("ses_other"); found || err != nil {
			t.Errorf("another session's leftovers: %v, %v; want none", found, err)
		}
		if found, err := sv.EndLeftovers("ses_crashed"); !found || err != nil {
			t.Fatalf("EndLeftovers = %v, %v", found, err)
		}
		waitGone(t, append(findProcs(t, mark), cmd.Process.Pid))
	})
}

// readyScript leaves a child out of its session running "sleep mark",
// says "ready" once that sleep runs, and becomes a long sleep itself.
func readyScript(mark string) string {
	return "setsid sleep " + mark + " & until pgrep -f '^sleep " + mark + "' >/dev/null; do :; done; echo ready; exec sleep 1000"
}

// startReady starts cmd, an earlier run's agent running readyScript, and
// waits for its word that its child runs. Its Wait is called here only so
// that it leaves no zombie.
func startReady(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the agent said %q, %v; want ready", line, err)
	}
	go cmd.Wait()
}

// waitGone waits until none of pids runs, on each one's pidfd, which the
// kernel makes readable when the process exits; 2 s in all at most, the
// most the product promises past a stop's grace (the kernel ends a
// namespace's processes a moment after its first).
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, _ := unix.Poll(fds, int(max(time.Until(deadline), 0)/time.Millisecond))
		unix.Close(fd)
		if n == 0 && running(pid) {
			t.Errorf("process %d still runs", pid)
		}
	}
}

func TestReachable(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "reach-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "pkg", "cli.js")
	link := filepath.Join(dir, "bin", "cli")
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../pkg/cli.js", link); err != nil {
		t.Fatal(err)
	}
	got := reachable(link)
	if want := []string{bin, dir, dir}; !slices.Equal(got, want) {
		t.Errorf("reachable(%s) = %q, want %q", link, got, want)
	}
	if got := reachable("/bin/sh"); len(got) != 1 || strings.HasPrefix(got[0], "/tmp") {
		t.Errorf("reachable(/bin/sh) = %q, want its resolved file alone", got)
	}
}
