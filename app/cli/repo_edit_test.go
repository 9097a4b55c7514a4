package cli_test

import (
	"context"
	"os"
	"strings"
	"testing"
)

// repo rename and repo remove: the list follows; removal is refused while
// an agent runs there, and the folder stays either way.
func TestCLIRepoRenameRemove(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	folder := t.TempDir()
	repoID := line(h.ok("repo", "add", folder).stdout)
	h.ok("repo", "rename", repoID, "service")
	if out := h.ok("repo", "list").stdout; !strings.Contains(out, "service") {
		t.Errorf("repo list after the rename:\n%s", out)
	}
	h.fails(2, "repo", "rename", repoID)

	ses := line(h.ok("agent", "start", "shell", "--repo", repoID).stdout)
	if r := h.fails(1, "repo", "remove", repoID); !strings.Contains(r.stderr, "still runs") {
		t.Errorf("remove with an agent running: %q", r.stderr)
	}
	h.ok("agent", "stop", ses, "--kill")
	if out := h.ok("repo", "remove", repoID).stdout; !strings.Contains(out, "left as it is") {
		t.Errorf("repo remove said %q", out)
	}
	if out := h.ok("repo", "list").stdout; strings.Contains(out, repoID) {
		t.Errorf("repo list after the removal:\n%s", out)
	}
	if _, err := os.Stat(folder); err != nil {
		t.Errorf("the folder went with it: %v", err)
	}
}
