package supervisor

import (
	"os"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
)

// A shell's status is whether a command holds its terminal: idle at its
// prompt even while the screen has just changed, working through a sleep
// that prints nothing, idle again once the sleep is interrupted.
func TestShellStatusFromItsForegroundJob(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	sh := profile.Profile{ID: ShellProfile, Name: "Shell", Command: "/bin/sh", Args: []string{"-i"}, Prompt: profile.PromptNone}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_shell", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	s.Input([]byte("echo READY\r"))
	waitScreen(t, s, "READY")
	// The screen has just changed, which alone would read as working.
	if st := s.Status(); st != StatusIdle {
		t.Errorf("a shell at its prompt, its screen just changed: %s", st)
	}
	s.Input([]byte("sleep 600\r"))
	waitUntil(t, "the sleep holding the terminal", func() bool { running, _ := s.proc.ForegroundJob(); return running })
	// Once the screen has been still for IdleAfter, it alone would read
	// as idle.
	waitUntil(t, "the screen still for IdleAfter", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return time.Since(s.changedAt) > sv.cfg.IdleAfter
	})
	if st := s.Status(); st != StatusRunning {
		t.Errorf("a shell running a silent sleep: %s", st)
	}
	s.Input([]byte{0x03}) // Ctrl-C
	waitUntil(t, "the shell idle again", func() bool { return s.Status() == StatusIdle })
}
