package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// The main goroutine keeps the main thread, from here through TestMain, so
// that TestMain can try runLowered there.
func init() { runtime.LockOSThread() }

// TestMain runs runLowered on the main thread, the one thread it must
// neither lower nor end on, before the tests.
func TestMain(m *testing.M) {
	confine.RunHelper(os.Args)
	runTestHost()
	type place struct {
		tid, nice int
		err       error
	}
	got := make(chan place, 1)
	runLowered(func() {
		n, err := statNice(fmt.Sprintf("/proc/self/task/%d/stat", syscall.Gettid()))
		got <- place{syscall.Gettid(), n, err}
	})
	p := <-got
	mainNice, err := statNice("/proc/self/stat")
	if p.err != nil || err != nil || p.tid == os.Getpid() || p.nice != backgroundNice || mainNice != 0 {
		fmt.Fprintf(os.Stderr, "runLowered on the main thread ran on thread %d at nice %d (%v); the main thread %d is at nice %d (%v); want another thread at nice %d, and 0 for the main one\n",
			p.tid, p.nice, p.err, os.Getpid(), mainNice, err, backgroundNice)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// statNice reads the nice value of a thread or process from its /proc stat
// file.
func statNice(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f, err := statField(b, 19)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return strconv.Atoi(string(f))
}

// threadsAt counts this process's threads whose nice value is nice. A
// thread that ends while we look is not counted.
func threadsAt(t *testing.T, nice int) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil || len(stats) == 0 {
		t.Fatalf("listing threads: %v", err)
	}
	count := 0
	for _, p := range stats {
		n, err := statNice(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == nice {
			count++
		}
	}
	return count
}

// The emulator and the recorder run on threads of their own below the
// agent's priority; the agent and the rest of the process keep theirs, and
// the lowered threads end with the session, so no other goroutine ever
// runs on them.
func TestEmulatorAndRecorderRunInBackground(t *testing.T) {
	waitBackgroundThreads(t, 0) // those of earlier tests' sessions may still be going
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_nice", Dir: t.TempDir(), Cols: 80, Rows: 24,
		Profile: standinProfile(t, profile.PromptNone, "stubborn")})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "ignoring signals")
	// The screen shows the emulator ran; the recorder may still be on its
	// way to its thread on a busy machine.
	waitBackgroundThreads(t, 2)
	if n, err := statNice(fmt.Sprintf("/proc/%d/stat", s.PID())); err != nil || n != 0 {
		t.Errorf("the agent runs at nice %d (%v), want 0", n, err)
	}
	if _, err := s.Stop(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	waitBackgroundThreads(t, 0)
}

// waitBackgroundThreads waits until want threads of this process run at
// backgroundNice (a session's threads reach it, and go when it ends, a
// moment later), and checks the main thread never does.
func waitBackgroundThreads(t *testing.T, want int) {
	t.Helper()
	if !eventually(t, func() bool { return threadsAt(t, backgroundNice) == want }) {
		t.Fatalf("%d threads at nice %d, want %d (a session's emulator and recorder while it runs, none after)", threadsAt(t, backgroundNice), backgroundNice, want)
	}
	if n, err := statNice("/proc/self/stat"); err != nil || n != 0 {
		t.Fatalf("the main thread runs at nice %d (%v), want 0", n, err)
	}
}
