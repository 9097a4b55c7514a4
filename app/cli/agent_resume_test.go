package cli_test

import (
	"context"
	"strings"
	"testing"
)

// agent resume names the session, and says why one cannot be resumed.
func TestCLIAgentResumeRefusals(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)
	ses := line(h.ok("agent", "start", "shell", "--repo", repoID).stdout)
	h.ok("agent", "stop", ses, "--kill")

	h.fails(2, "agent", "resume")
	if r := h.fails(1, "agent", "resume", ses); !strings.Contains(r.stderr, "Shell cannot resume a conversation") {
		t.Errorf("resuming a shell's session says:\n%s", r.stderr)
	}
	if r := h.fails(1, "agent", "resume", "ses_nosuchsession"); !strings.Contains(r.stderr, "not_found") {
		t.Errorf("resuming an unknown session says:\n%s", r.stderr)
	}
}
