package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// The main goroutine keeps the main thread, from here through TestMain, so
// that TestMain can try runLowered there.
func init() { runtime.LockOSThread() }

// TestMain runs runLowered on the main thread, the one thread it must
// neither lower nor end on, before the tests.
func TestMain(m *testing.M) {
	type place struct{ tid, nice int }
	got := make(chan place, 1)
	runLowered(func() {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", syscall.Gettid()))
		got <- place{syscall.Gettid(), statNice(b)}
	})
	p := <-got
	main, _ := os.ReadFile("/proc/self/stat")
	if p.tid == os.Getpid() || p.nice != backgroundNice || statNice(main) != 0 {
		fmt.Fprintf(os.Stderr, "runLowered on the main thread ran on thread %d at nice %d (the main thread %d is at nice %d); want another thread at nice %d, and 0 for the main one\n",
			p.tid, p.nice, os.Getpid(), statNice(main), backgroundNice)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// statNice is the nice value in a /proc stat file's contents (the 19th
// field, counted after the command name, which may itself hold spaces), or
// -100 if there is none.
func statNice(b []byte) int {
	fields := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(fields) < 17 {
		return -100
	}
	n, err := strconv.Atoi(string(fields[16]))
	if err != nil {
		return -100
	}
	return n
}

// niceOf reads the nice value of a thread or process from its /proc stat
// file; false if it ended while we looked.
func niceOf(t *testing.T, statPath string) (int, bool) {
	t.Helper()
	b, err := os.ReadFile(statPath)
	if err != nil {
		return 0, false
	}
	n := statNice(b)
	if n == -100 {
		t.Fatalf("%s: no nice value in %q", statPath, b)
	}
	return n, true
}

// threadsAt counts this process's threads whose nice value is nice.
func threadsAt(t *testing.T, nice int) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil || len(stats) == 0 {
		t.Fatalf("listing threads: %v", err)
	}
	count := 0
	for _, p := range stats {
		if n, ok := niceOf(t, p); ok && n == nice {
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
	waitNoBackgroundThreads(t) // those of earlier tests' sessions
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_nice", Dir: t.TempDir(), Cols: 80, Rows: 24,
		Profile: standinProfile(t, store.PromptNone, "stubborn")})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "ignoring signals")
	// The screen shows the emulator ran; the recorder may still be on its
	// way to its thread on a busy machine.
	for deadline := time.Now().Add(5 * time.Second); threadsAt(t, backgroundNice) < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := threadsAt(t, backgroundNice); n != 2 {
		t.Errorf("%d threads at nice %d while a session runs, want 2 (emulator, recorder)", n, backgroundNice)
	}
	if n, ok := niceOf(t, fmt.Sprintf("/proc/%d/stat", s.PID())); !ok || n != 0 {
		t.Errorf("the agent runs at nice %d (found %v), want 0", n, ok)
	}
	if _, err := s.Stop(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	waitNoBackgroundThreads(t)
}

// waitNoBackgroundThreads waits until no thread of this process runs at
// backgroundNice: a session's end lets its threads go a moment later.
func waitNoBackgroundThreads(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); threadsAt(t, backgroundNice) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads still at nice %d after 5 s", threadsAt(t, backgroundNice), backgroundNice)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, _ := niceOf(t, "/proc/self/stat"); n != 0 {
		t.Fatalf("the main thread runs at nice %d, want 0", n)
	}
}
