package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

func TestInFolder(t *testing.T) {
	for _, c := range []struct {
		sub, f, rel string
		ok          bool
	}{
		{"", "a/b.go", "a/b.go", true},
		{"app", "app/src/x.go", "src/x.go", true},
		{"app", "README", "../README", false},
		{"app", "apple/x", "../apple/x", false},
		{"a/b", "a/b/c/d", "c/d", true},
		{"a/b", "a/x", "../x", false},
		{"a/b", "z", "../../z", false},
	} {
		if rel, ok := inFolder(c.sub, c.f); rel != c.rel || ok != c.ok {
			t.Errorf("inFolder(%q, %q) = %q, %v; want %q, %v", c.sub, c.f, rel, ok, c.rel, c.ok)
		}
	}
}

// testGit runs git for a test's set-up, with no configuration of the
// machine's (gitEnv).
func testGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// gitEnv keeps the machine's git configuration out of the test.
func gitEnv(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	gittest.WriteFile(t, cfg, "")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// personGitRepo is a new repository on main, in git's test environment,
// whose commits are the person's, with one commit of files (path relative
// to it → text).
func personGitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	gitEnv(t)
	dir := t.TempDir()
	testGit(t, dir, "init", "-q", "-b", "main")
	testGit(t, dir, "config", "user.name", "Dev Person")
	testGit(t, dir, "config", "user.email", "dev@example.com")
	for name, text := range files {
		gittest.WriteFile(t, filepath.Join(dir, name), text)
	}
	testGit(t, dir, "add", "-A")
	testGit(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// gitAgent is a session of the client token working in a real worktree of
// its own, recorded as the supervisor records one.
type gitAgent struct {
	f   *fixture
	p   Principal
	ses string
	ws  workspace.Workspace
}

func newGitAgent(t *testing.T, f *fixture, repo store.Repository, root string) *gitAgent {
	t.Helper()
	ctx := context.Background()
	tok := f.token(t, f.clientKeyID(t))
	p := TokenPrincipal(tok)
	opened := f.invoke(p, TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID))
	wantCode(t, opened, "ok")
	ses := opened.Value.(ReportResult).SessionID
	ws, err := workspace.Create(ctx, workspace.Spec{RepoPath: repo.Path, Root: root, RepositoryID: repo.ID, SessionID: ses, Slug: "work"})
	if err != nil {
		t.Fatal(err)
	}
	rec := store.Workspace{Path: ws.Path, Branch: ws.Branch, BaseBranch: ws.BaseBranch, BaseCommit: ws.BaseCommit}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportSupervisor, MethodAgentWorkspace, AgentWorkspaceArgs{SessionID: ses, Workspace: rec}); err != nil {
		t.Fatal(err)
	}
	return &gitAgent{f: f, p: p, ses: ses, ws: ws}
}

func (a *gitAgent) claim(t *testing.T, repoID string) AwaitResult {
	t.Helper()
	got, err := Invoke(context.Background(), a.f.reg, a.p, TransportMCP, MethodWorkAwaitPacket, AwaitArgs{RepositoryID: repoID, SessionID: a.ses, WaitSeconds: -1})
	if err != nil || got.Packet == nil {
		t.Fatalf("claim: %+v, %v", got.Packet, err)
	}
	return got
}

func (a *gitAgent) complete(got AwaitResult) (store.Packet, error) {
	out, err := Invoke(context.Background(), a.f.reg, a.p, TransportMCP, MethodWorkComplete, CompleteArgs{PacketID: got.Packet.ID, SessionID: a.ses, LeaseID: got.LeaseID})
	return out.Packet, err
}

// The repository's folder can be a folder below the top of its git
// repository: the write scope's globs are relative to that folder, git
// names files from the top, and a file outside the folder is outside every
// scope (named with "..", as from the folder).
func TestCompletionScopeInASubfolder(t *testing.T) {
	top := personGitRepo(t, map[string]string{"README": "top\n", filepath.Join("app", "src", "main.go"): "package main\n"})

	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, filepath.Join(top, "app"))
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(context.Background(), f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "Parse", WriteScope: []string{"src/"}}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "app", "src", "parse.go"), "package main // parser\n")
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "app", "notes.txt"), "notes\n")
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "README"), "top, edited\n")
	_, err := a.complete(got)
	if store.CodeOf(err) != store.CodeWriteScopeViolation || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "../README") || strings.Contains(err.Error(), "parse.go") {
		t.Fatalf("completion with files outside the scope: %v", err)
	}
	// The files travel as paths too, for an agent to act on without
	// reading the reason.
	var d *store.Denial
	if !errors.As(err, &d) || !slices.Equal(d.Paths, []string{"../README", "notes.txt"}) {
		t.Errorf("the violation's paths: %+v", d)
	}
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "README"), "top\n")
	if err := os.Remove(filepath.Join(a.ws.Path, "app", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	p, err := a.complete(got)
	if err != nil || p.Changes == nil || p.Changes.From != a.ws.BaseCommit || p.Changes.Files != 1 {
		t.Fatalf("completion inside the scope: %+v, %v", p.Changes, err)
	}
}

// A packet sent back to the session that made it: its next range is all
// of its commits, the earlier ones too, while the base has not moved; when
// the agent merges (or rebases) the moved base in, the range starts at the
// merge-base, so it holds the agent's change and not the base's.
func TestCompletionRangeOfASentBackPacket(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})

	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "A", WriteScope: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	sendBack := func(id string) {
		t.Helper()
		if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodReviewVerdict, VerdictArgs{PacketID: id, Verdict: store.VerdictRequestChanges, Notes: "more"}); err != nil {
			t.Fatal(err)
		}
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "a, edited\n")
	p, err := a.complete(got)
	if err != nil || p.State != store.PacketDone || p.Changes == nil {
		t.Fatalf("first completion: %+v, %v", p, err)
	}

	sendBack(p.ID)
	got = a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "a, edited\nand fixed\n")
	p, err = a.complete(got)
	if err != nil || p.Changes.From != a.ws.BaseCommit || p.Changes.Files != 1 || p.Changes.Added != 2 {
		t.Fatalf("after a fix on top: %+v, %v; want the whole packet from %s", p.Changes, err, a.ws.BaseCommit)
	}

	// The base moves (another file); the agent merges it in. b.txt is
	// outside the packet's scope, and not its change.
	gittest.WriteFile(t, filepath.Join(dir, "b.txt"), "b, by someone else\n")
	testGit(t, dir, "commit", "-q", "-am", "b")
	main := strings.TrimSpace(testGit(t, dir, "rev-parse", "main"))
	sendBack(p.ID)
	got = a.claim(t, repo.ID)
	testGit(t, a.ws.Path, "merge", "-q", "--no-edit", "main")
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "a, edited\nand fixed\nand merged\n")
	p, err = a.complete(got)
	if err != nil || p.Changes.From != main || p.Changes.Files != 1 || p.Changes.Added != 3 || p.Changes.Deleted != 1 {
		t.Fatalf("after merging the base: %+v, %v; want from main's %s, a.txt only", p.Changes, err, main)
	}
}

// A packet sent back for changes waits for the session that made them;
// when that session ends, an agent already waiting on the repository is
// woken and given it (its wait is far longer than the test allows, so
// only the wake-up can end it).
func TestSentBackFreedWhenItsMakerEnds(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})

	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	maker, other := newGitAgent(t, f, repo, t.TempDir()), newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "A"}); err != nil {
		t.Fatal(err)
	}
	got := maker.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(maker.ws.Path, "a.txt"), "a, edited\n")
	p, err := maker.complete(got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodReviewVerdict, VerdictArgs{PacketID: p.ID, Verdict: store.VerdictRequestChanges, Notes: "more"}); err != nil {
		t.Fatal(err)
	}

	type answer struct {
		res AwaitResult
		err error
	}
	woken := make(chan answer, 1)
	go func() {
		res, err := Invoke(ctx, f.reg, other.p, TransportMCP, MethodWorkAwaitPacket, AwaitArgs{RepositoryID: repo.ID, SessionID: other.ses, WaitSeconds: 600})
		woken <- answer{res, err}
	}()
	// End the maker once the other agent's poll is parked on the
	// repository, held off by the packet's maker.
	waitParked(t, f.reg, QueueKey(repo.ID), "the long poll to wait")
	if err := f.reg.EndSession(ctx, SessionEndArgs{SessionID: maker.ses, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-woken:
		if a.err != nil || a.res.Packet == nil || a.res.Packet.ID != p.ID {
			t.Fatalf("the waiting agent after the maker ended: %+v, %v; want %s", a.res.Packet, a.err, p.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting agent was not woken when the packet's maker ended")
	}
}
