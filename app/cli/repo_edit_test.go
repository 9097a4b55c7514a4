package cli_test

import (
	"context"
	"os"
	"os/exec"
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

// repo first-commit gives an empty repository an empty first commit, once.
func TestCLIRepoFirstCommit(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Dev"}, {"config", "user.email", "dev@example.com"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repoID := line(h.ok("repo", "add", dir).stdout)
	if out := h.ok("repo", "first-commit", repoID).stdout; !strings.Contains(out, "empty first commit") || !strings.Contains(out, "on main") {
		t.Errorf("first-commit said %q", out)
	}
	if r := h.fails(1, "repo", "first-commit", repoID); !strings.Contains(r.stderr, "has a commit already") {
		t.Errorf("a second first-commit said %q", r.stderr)
	}
}
