package supervisor

import (
	"os"
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
