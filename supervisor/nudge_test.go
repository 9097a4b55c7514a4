package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
)

// Nudge types into an agent waiting at its prompt, and never into a
// program that takes no prompts (a shell would run the text).
func TestNudge(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_nudge", Dir: t.TempDir(),
		Profile: standinProfile(t, profile.PromptTyped, "bracketed"), Prompt: "first", Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "GOT <paste>first</paste>")
	waitUntil(t, "the agent idle at its prompt", func() bool { return s.Status() == StatusIdle })
	if !s.Nudge("come back to it") {
		t.Fatal("an idle agent was not nudged")
	}
	waitScreen(t, s, "GOT <paste>come back to it</paste>")

	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	shell, err := sv.Launch(LaunchSpec{SessionID: "ses_nudge_sh", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the shell idle", func() bool { return shell.Status() == StatusIdle })
	if shell.Nudge("rm -rf nothing") {
		t.Error("a shell was nudged: it would run the text")
	}
}

// A nudge that finds the agent at work waits for it to stop, then types:
// an agent sent back mid-task still hears of it at its prompt.
func TestNudgeWaitsForABusyAgent(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	dir := t.TempDir()
	busy := filepath.Join(dir, "busy")
	if err := os.WriteFile(busy, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := profile.Profile{ID: "busy", Name: "busy", Command: "/bin/sh", Prompt: profile.PromptArgument,
		Args: []string{"-c", `while [ -e busy ]; do echo working; sleep 0.05; done; echo READY; exec cat`, "sh", "{prompt}"}}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_nudge_busy", Dir: dir, Profile: p, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "working")
	waitUntil(t, "the agent at work", func() bool { return s.Status() == StatusRunning })
	if !s.Nudge("first") || !s.Nudge("come back to it") {
		t.Fatal("a busy agent's nudge was refused")
	}
	if strings.Contains(s.Terminal().Text(), "come back") {
		t.Fatal("the nudge was typed while the agent worked")
	}
	if err := os.Remove(busy); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "come back to it")
	if strings.Contains(s.Terminal().Text(), "first") {
		t.Error("a replaced nudge was typed too")
	}
}
