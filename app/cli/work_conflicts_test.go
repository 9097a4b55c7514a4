package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testwait"
	"github.com/switchboard-dev/switchboard/mcpserver"
)

// switchboard work get (and show) says when a done packet conflicts with
// the main the person moved, in text and JSON, and work conflicts prints
// the hunk.
func TestCLIWorkConflicts(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	ctx := context.Background()
	git := func(dir string, args ...string) string { t.Helper(); return gitIn(t, dir, args...) }
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	repoDir := personRepo(t)

	h := newHarness(t)
	d := h.start()
	defer d.Close(ctx)
	repoID := line(h.ok("repo", "add", repoDir).stdout)
	pkt := line(h.ok("work", "create", "--repo", repoID, "--title", "Greet").stdout)
	got, _ := agentWrites(t, h, d, repoID, pkt, "greet.txt", "hello from the agent\n")

	// main moves on elsewhere: work rebase brings the packet onto it, on
	// a branch of its own.
	write(filepath.Join(repoDir, "other.txt"), "the person's other file\n")
	git(repoDir, "add", "other.txt")
	git(repoDir, "commit", "-q", "-m", "the person's other file")
	agentTip := git(repoDir, "rev-parse", got.Workspace.Branch)
	rebased := got.Workspace.Branch + "-rebased"
	r := h.ok("work", "rebase", pkt)
	if head := git(repoDir, "rev-parse", rebased); r.stdout != pkt+" rebased onto main at "+git(repoDir, "rev-parse", "main")[:12]+": its commits are on "+rebased+", up to "+head[:12]+" (the agent's branch is as it was)\n" {
		t.Errorf("work rebase: %v", r)
	}
	if git(repoDir, "rev-parse", got.Workspace.Branch) != agentTip {
		t.Error("work rebase moved the agent's branch")
	}

	write(filepath.Join(repoDir, "greet.txt"), "hello from the person\n")
	git(repoDir, "commit", "-q", "-am", "the person's greeting")
	main := git(repoDir, "rev-parse", "main")
	var shown mcpserver.WorkGetResult
	testwait.Until(t, "work get --json to show the conflict with the moved main", func() bool {
		h.jsonOut(&shown, "work", "get", pkt, "--json")
		return shown.Conflicts != nil && shown.Conflicts.Target == main
	})
	if c := shown.Conflicts; !c.Conflicting() || c.TargetBranch != "main" || len(c.Files) != 1 || c.Files[0] != "greet.txt" {
		t.Fatalf("work get --json conflicts: %+v", c)
	}
	if r := h.ok("work", "show", pkt); !strings.Contains(r.stdout, "Conflicts:    conflicts with main in greet.txt (main at "+main[:12]+")") ||
		!strings.Contains(r.stdout, "switchboard work conflicts "+pkt) {
		t.Errorf("work show of a conflicting packet:\n%s", r.stdout)
	}
	want := "== greet.txt\nCONFLICT (content): Merge conflict in greet.txt\n@@ line 1\n<<<<<<< main\nhello from the person\n=======\nhello from the agent\n>>>>>>> " + rebased + "\n"
	if r := h.ok("work", "conflicts", pkt); !strings.Contains(r.stdout, want) {
		t.Errorf("work conflicts:\n%s\nwant\n%s", r.stdout, want)
	}
	if r := h.fails(1, "work", "rebase", pkt); !strings.Contains(r.stderr, "merge_conflict") || !strings.Contains(r.stderr, "greet.txt") {
		t.Errorf("work rebase of a conflicting packet: %v", r)
	}
	if r := h.ok("work", "conflicts", pkt, "--send-back"); r.stdout != pkt+" sent back to its agent with its conflicts as the review (queued, attempt 1 of 3 kept)\n" {
		t.Errorf("work conflicts --send-back: %v", r)
	}
}
