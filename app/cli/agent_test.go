package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// agent start --prompt reaches the agent whatever its profile: the shell
// profile takes no prompt argument, so the running app types it in, and
// the shell runs it. What the screen shows is the command's result, which
// the typed line itself does not contain.
func TestCLIAgentStartPromptIntoShell(t *testing.T) {
	// The shell profile's command is $SHELL: one that knows $((...)).
	t.Setenv("SHELL", "/bin/sh")
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)

	r := h.ok("agent", "start", "shell", "--repo", repoID, "--prompt", "echo sb-prompt-$((6*7))")
	ses := line(r.stdout)
	if !strings.Contains(r.stderr, "It works in the repository's folder") || !strings.Contains(r.stderr, "is not a git repository") {
		t.Errorf("agent start in a folder that is not a git repository says:\n%s", r.stderr)
	}
	h.fails(1, "agent", "start", "shell", "--repo", repoID, "--base", "--upload-pack=x")
	s, ok := d.Agents().Get(ses)
	if !ok {
		t.Fatalf("agent start printed %q, which the app does not supervise", ses)
	}
	changed, stop := s.ScreenChanged()
	defer stop()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.Terminal().Text(), "sb-prompt-42") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the prompt never ran; the screen shows:\n%s", s.Terminal().Text())
		}
	}
}
