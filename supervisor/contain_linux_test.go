package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
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
				Profile: store.Profile{ID: "sh", Name: "sh", Command: "sh", Args: []string{"-c", script}, Prompt: store.PromptNone}}
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
			deadline := time.Now().Add(10 * time.Second)
			for len(pids) < 2 && time.Now().Before(deadline) {
				pids = findProcs(t, mark)
			}
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
			deadline = time.Now().Add(2 * time.Second)
			for _, pid := range pids {
				for running(pid) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if running(pid) {
					t.Errorf("child %d still runs 2 s after Stop", pid)
				}
			}
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
