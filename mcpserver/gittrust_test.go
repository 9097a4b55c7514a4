package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
)

// The git the server runs for an agent's worktree trusts nothing the agent
// could have written: the repository's shared .git holds a core.fsmonitor
// and a relative core.hooksPath to tracked hooks, and the agent points
// its worktree's .git at a git folder of its own with an fsmonitor of its
// own. Completing (the commit made for the agent), the session's diff,
// the worktree list and landing run none of them, act on the worktree's
// real branch, and the packet says the commit ran no hook.
func TestGitForAnAgentTrustsNothingItWrote(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})
	markers := t.TempDir()
	for _, name := range []string{"pre-commit", "commit-msg", "post-commit", "post-checkout", "post-merge", "reference-transaction"} {
		gittest.WriteFile(t, filepath.Join(dir, "hooks", name), "#!/bin/sh\ntouch '"+filepath.Join(markers, name)+"'\n")
		if err := os.Chmod(filepath.Join(dir, "hooks", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testGit(t, dir, "add", "hooks")
	testGit(t, dir, "commit", "-q", "-m", "hooks")
	testGit(t, dir, "config", "core.hooksPath", "hooks")
	testGit(t, dir, "config", "core.fsmonitor", "touch '"+filepath.Join(markers, "fsmonitor")+"'; false #")
	noMarker := func(after string) {
		t.Helper()
		if entries, _ := os.ReadDir(markers); len(entries) > 0 {
			t.Fatalf("%s ran %s and more", after, entries[0].Name())
		}
	}

	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "A"}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	noMarker("making the worktree and claiming")
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "a, by the agent\n")
	evil := filepath.Join(a.ws.Path, ".evil")
	testGit(t, t.TempDir(), "init", "-q", "-b", "evil", "--separate-git-dir="+evil, t.TempDir())
	testGit(t, evil, "config", "core.fsmonitor", "touch '"+filepath.Join(markers, "evil")+"'; false #")
	gittest.WriteFile(t, filepath.Join(a.ws.Path, ".git"), "gitdir: .evil\n")

	d, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodSessionDiff, SessionDiffArgs{SessionID: a.ses})
	if err != nil || !strings.Contains(d.Diff, "+a, by the agent") {
		t.Fatalf("session diff: %v\n%s", err, d.Diff)
	}
	noMarker("session.diff")
	p, err := a.complete(got)
	if err != nil || p.Changes == nil || !p.Changes.HooksNotRun {
		t.Fatalf("completion: %+v, %v; want changes with hooks_not_run", p.Changes, err)
	}
	if tip := strings.TrimSpace(testGit(t, dir, "rev-parse", "refs/heads/"+a.ws.Branch)); tip != p.Changes.To {
		t.Errorf("the commit %s is not on the worktree's branch (at %s)", p.Changes.To, tip)
	}
	noMarker("work.complete")
	list, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkspaceList, NoArgs{})
	if err != nil || len(list.Workspaces) != 1 || list.Workspaces[0].State == nil || list.Workspaces[0].State.Branch != a.ws.Branch {
		t.Fatalf("workspace list: %+v, %v", list.Workspaces, err)
	}
	noMarker("workspace.list")
	landed, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkLand, WorkLandArgs{PacketID: p.ID})
	if err != nil || strings.TrimSpace(testGit(t, dir, "rev-parse", "main")) != landed.Commit {
		t.Fatalf("land: %+v, %v", landed, err)
	}
	if got := gittest.ReadFile(t, filepath.Join(dir, "a.txt")); got != "a, by the agent\n" {
		t.Errorf("a.txt in the person's checkout after landing: %q", got)
	}
	noMarker("work.land")
	var rec store.Packet
	if err := f.db.View(ctx, func(tx *store.Tx) error { rec, err = tx.Packet(p.ID); return err }); err != nil || rec.Changes == nil || !rec.Changes.HooksNotRun {
		t.Errorf("the stored packet's changes: %+v, %v", rec.Changes, err)
	}
}
