package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// setupSupervisor is newTestSupervisor with a short setup timeout.
func setupSupervisor(t *testing.T) (*Supervisor, *exitLog) {
	t.Helper()
	dir := t.TempDir()
	log := &exitLog{exits: map[string]Exit{}}
	sv := New(Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "recordings"),
		Exited: log.record, Env: append(os.Environ(), "HOME="+dir),
		StopGrace: 300 * time.Millisecond, DrainWait: 300 * time.Millisecond,
		IdleAfter: 300 * time.Millisecond, SettleDelay: 200 * time.Millisecond, PromptWait: 5 * time.Second,
		SetupTimeout: 2 * time.Second,
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sv.Close(ctx)
	})
	return sv, log
}

// shAgent is an agent that is a shell running script.
func shAgent(script string) profile.Profile {
	return profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Args: []string{"-c", script}, Prompt: profile.PromptNone}
}

// alive reports whether process pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// The setup runs first on the session's terminal, with the agent's
// environment (SWITCHBOARD_PORT too) in the agent's folder; what it leaves
// running ends with it; then the agent starts on the same terminal and
// gets the typed prompt. Both are in the recording.
func TestSetupRunsBeforeTheAgent(t *testing.T) {
	sv, _ := setupSupervisor(t)
	dir := t.TempDir()
	setup := &Setup{Path: "/bin/sh", Args: []string{"-c",
		`echo "setup-port=$SWITCHBOARD_PORT setup-at=$(pwd)"; sleep 60 & echo $! > bg.pid; touch setup-ran`}, Label: "make deps"}
	p := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptTyped}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_setup", RepositoryID: "repo_1", Dir: dir, Profile: p, Port: 41020,
		Setup: setup, Prompt: `test -f setup-ran && echo "agent-saw-$SWITCHBOARD_PORT"`})
	if err != nil {
		t.Fatal(err)
	}
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case <-s.AgentStarted():
	case <-s.Done():
		t.Fatalf("the session ended: %+v\n%s", s.Exit(), s.Terminal().Text())
	case <-end:
		t.Fatal("the agent never started")
	}
	screen := waitScreen(t, s, "agent-saw-41020")
	for _, want := range []string{"[switchboard] setup: make deps", "setup-port=41020 setup-at=" + dir, "setup done; starting the agent"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if s.Info().Setup {
		t.Error("Info says the setup runs after the agent started")
	}
	if start, err := ProcStart(s.PID()); err != nil || start != s.ProcStart() {
		t.Errorf("ProcStart %d is not the agent's (%d, %v)", s.ProcStart(), start, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bg.pid"))
	if err != nil {
		t.Fatal(err)
	}
	bg, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitUntil(t, "the setup's background process "+strconv.Itoa(bg)+" to end with it", func() bool { return bg <= 0 || !alive(bg) })
	if exit, err := s.Stop(context.Background(), false); err != nil || exit.Setup || exit.Reason != "stopped" {
		t.Errorf("stop the agent: %+v, %v", exit, err)
	}
	out, _ := readCast(t, s.Info().Recording)
	if !strings.Contains(out, "setup-port=41020") || !strings.Contains(out, "agent-saw-41020") {
		t.Errorf("the recording lacks the setup's or the agent's output:\n%q", out)
	}
}

// A setup that fails, runs out of time or is stopped ends the session with
// its output in the recording, and the agent never starts.
func TestSetupFailureEndsTheStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		stop   bool
		reason string
		code   int
	}{
		{"exit status", "echo setup-output; exit 3", false, "setup failed: exit status 3", 3},
		{"timeout", "echo setup-output; exec sleep 60", false, "setup timed out after 2s", -1},
		{"stopped", "echo setup-output; exec sleep 60", true, "stopped during setup", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv, exits := setupSupervisor(t)
			dir := t.TempDir()
			id := "ses_fail" + strings.ReplaceAll(tc.name, " ", "")
			s, err := sv.Launch(LaunchSpec{SessionID: id, Dir: dir, Profile: shAgent("touch agent-ran; sleep 60"),
				Setup:     &Setup{Path: "/bin/sh", Args: []string{"-c", tc.script}, Label: "failing"},
				Workspace: &store.Workspace{Path: dir, Branch: "switchboard/x", BaseBranch: "main"}})
			if err != nil {
				t.Fatal(err)
			}
			waitScreen(t, s, "setup-output")
			if tc.code == -1 && !s.Info().Setup { // the setup sleeps
				t.Error("Info does not say the setup runs")
			}
			if tc.stop {
				if _, err := s.Stop(context.Background(), false); err != nil {
					t.Fatal(err)
				}
			}
			exit := waitDone(t, s)
			if !exit.Setup || exit.Reason != tc.reason || exit.Code != tc.code {
				t.Errorf("exit %+v, want the setup's, %q, code %d", exit, tc.reason, tc.code)
			}
			if e, ok := exits.get(id); !ok || e != exit {
				t.Errorf("Exited got %+v, %v", e, ok)
			}
			select {
			case <-s.AgentStarted():
				t.Error("AgentStarted closed")
			default:
			}
			if _, err := os.Stat(filepath.Join(dir, "agent-ran")); err == nil {
				t.Error("the agent ran after its setup failed")
			}
			out, _ := readCast(t, s.Info().Recording)
			for _, want := range []string{"setup-output", tc.reason + "; the agent was not started. The worktree is kept: " + dir} {
				if !strings.Contains(out, want) {
					t.Errorf("the recording lacks %q:\n%q", want, out)
				}
			}
		})
	}
}

// A setup program runs as a program, not through a shell: its path and
// arguments reach it as they are. One that cannot start fails the launch
// and leaves nothing behind.
func TestSetupProgram(t *testing.T) {
	sv, _ := setupSupervisor(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "set up; $(touch pwned)")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"program-ran $# $0\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_prog", Dir: dir, Profile: shAgent("echo agent-ran; sleep 60"),
		Setup: &Setup{Path: prog, Label: ".switchboard/setup"}})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "agent-ran")
	if screen := s.Terminal().Text(); !strings.Contains(screen, "program-ran 0 "+prog) {
		t.Errorf("screen:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the setup's path went through a shell")
	}
	s.Stop(context.Background(), true)
	waitDone(t, s)

	_, err = sv.Launch(LaunchSpec{SessionID: "ses_noprog", Dir: dir, Profile: shAgent("true"),
		Setup: &Setup{Path: filepath.Join(dir, "missing"), Label: "missing"}})
	if err == nil {
		t.Fatal("launched with a setup that does not exist")
	}
	if _, ok := sv.Get("ses_noprog"); ok {
		t.Error("a launch that failed left a session")
	}
}
