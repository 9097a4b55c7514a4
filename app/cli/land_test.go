package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// switchboard land prints a pull request's address (the repository's
// landing setting), then a rebase's new tip (--mode), and exits 1 with the
// code when a landing is refused.
func TestCLILandModes(t *testing.T) {
	const prURL = "https://github.test/dev/project/pull/3"
	bin := t.TempDir()
	gh := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in\npr) echo %s ;;\nesac\nexit 0\n", prURL)
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SHELL", "/bin/sh")
	ctx := context.Background()
	git := func(dir string, args ...string) string { t.Helper(); return gitIn(t, dir, args...) }
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	repoDir, bare := personRepo(t), t.TempDir()
	git(bare, "init", "-q", "--bare")
	git(repoDir, "remote", "add", "origin", bare)

	h := newHarness(t)
	d := h.start()
	defer d.Close(ctx)
	repoID := line(h.ok("repo", "add", repoDir).stdout)
	h.ok("repo", "set", repoID, "--landing", "pull-request")

	// work has an agent write name in its worktree and complete a packet.
	work := func(name string) string {
		t.Helper()
		pkt := line(h.ok("work", "create", "--repo", repoID, "--title", "Write "+name).stdout)
		agentWrites(t, h, d, repoID, pkt, name, name+"\n")
		return pkt
	}

	base := git(repoDir, "rev-parse", "main")
	first := work("one.txt")
	// The diff is git's, byte for byte, as git apply takes it.
	var changes mcpserver.PacketResult
	h.jsonOut(&changes, "work", "get", first, "--json")
	ch := changes.Packet.Changes
	if r := h.ok("diff", first); ch == nil || r.stdout != git(repoDir, "diff", ch.From, ch.To)+"\n" || !strings.HasPrefix(r.stdout, "diff --git a/one.txt b/one.txt\n") {
		t.Errorf("switchboard diff:\n%s", r.stdout)
	}
	r := h.ok("land", first)
	if r.stdout != prURL+"\n" || !strings.Contains(r.stderr, "to origin and opened a pull request into main") {
		t.Errorf("land by pull request: %v", r)
	}
	if git(repoDir, "rev-parse", "main") != base {
		t.Error("a pull request moved main")
	}

	second := work("two.txt")
	write(filepath.Join(repoDir, "person.txt"), "the person's\n")
	git(repoDir, "add", "person.txt")
	git(repoDir, "commit", "-q", "-m", "the person's commit")
	var out mcpserver.LandResult
	h.jsonOut(&out, "land", second, "--mode", "rebase", "--json")
	if tip := git(repoDir, "rev-parse", "main"); out.Commit != tip || out.Packet.Landed == nil || out.Packet.Landed.Mode != "rebase" {
		t.Errorf("land --mode rebase --json: %+v; main at %s", out, tip)
	}
	if r := h.ok("work", "get", second); !strings.Contains(r.stdout, "Landed:       "+out.Commit[:12]+" by rebase") || !strings.Contains(r.stdout, "Changes:      1 files, +1 -0") {
		t.Errorf("work get of a landed packet:\n%s", r.stdout)
	}
	if r := h.fails(1, "land", second, "--mode", "rebase"); !strings.Contains(r.stderr, "invalid_state") {
		t.Errorf("landing twice: %v", r)
	}
	if r := h.fails(1, "land", second, "--mode", "octopus"); !strings.Contains(r.stderr, "invalid_argument") {
		t.Errorf("an unknown mode: %v", r)
	}
}
