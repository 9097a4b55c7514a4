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
)

// niceOf reads the nice value from a /proc stat file: the 19th field,
// counted after the command name, which may itself hold spaces.
func niceOf(t *testing.T, statPath string) (int, bool) {
	t.Helper()
	b, err := os.ReadFile(statPath)
	if err != nil {
		return 0, false // a thread that ended while we looked
	}
	fields := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	n, err := strconv.Atoi(string(fields[16]))
	if err != nil {
		t.Fatalf("%s: nice %q: %v", statPath, fields[16], err)
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
