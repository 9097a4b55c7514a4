package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// git runs git for the test's own set-up, as a person with an identity.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Run(context.Background(), dir, append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// mustOK fails the test at once on an error.
func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// registerRepo registers dir as the operator does, from the GUI.
func registerRepo(t *testing.T, reg *mcpserver.Registry, dir string) store.Repository {
	t.Helper()
	out, err := mcpserver.Invoke(context.Background(), reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: dir})
	mustOK(t, err)
	return out.Repository
}

// writeFile writes text to dir/name, owner-only.
func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// personRepo is a new repository on main whose commits are the person's
// (Dev Person), with one commit of files (name → text).
func personRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Dev Person")
	git(t, dir, "config", "user.email", "dev@example.com")
	for name, text := range files {
		writeFile(t, dir, name, text)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// An agent started in a git repository works in a worktree of its own, on
// a branch of its own, told so in its environment; the person's checkout,
// with its uncommitted edit and untracked file, is not touched, and the
// worktree outlives the agent. A folder that is not a git repository, or a
// start that asks for none, runs in the folder itself.
func TestAgentStartsInItsOwnWorktree(t *testing.T) {
	repoDir := t.TempDir()
	git(t, repoDir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repoDir, "a.txt"), []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, repoDir, "add", "a.txt")
	git(t, repoDir, "commit", "-q", "-m", "first")
	for name, text := range map[string]string{"a.txt": "one, edited by the person\n", "u.txt": "untracked\n"} {
		if err := os.WriteFile(filepath.Join(repoDir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := git(t, repoDir, "status", "--porcelain")

	t.Setenv("SHELL", "/bin/sh")
	paths := newPaths(t)
	d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	register := func(path string) store.Repository {
		t.Helper()
		out, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		return out.Repository
	}
	repo := register(repoDir)
	plain := register(t.TempDir())
	startShell := func(args mcpserver.AgentStartArgs) mcpserver.AgentStarted {
		t.Helper()
		args.Profile = "shell"
		args.Prompt = `echo "at:$(pwd)"; echo "branch:$SWITCHBOARD_BRANCH base:$SWITCHBOARD_BASE"`
		out, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, args)
		if err != nil {
			t.Fatalf("agent.start: %v", err)
		}
		return out
	}
	screenOf := func(id string, want ...string) {
		t.Helper()
		s, ok := d.Agents().Get(id)
		if !ok {
			t.Fatalf("no agent %s", id)
		}
		waitFor(t, func() bool {
			text := s.Terminal().Text()
			for _, w := range want {
				if !strings.Contains(text, w) {
					return false
				}
			}
			return true
		})
	}

	started := startShell(mcpserver.AgentStartArgs{RepositoryID: repo.ID})
	ws := started.Workspace
	if ws == nil || started.Isolation != "worktree" {
		t.Fatalf("agent.start in a git repository: workspace %+v, isolation %q", ws, started.Isolation)
	}
	root, _ := filepath.EvalSymlinks(paths.Worktrees())
	if ws.Path != filepath.Join(root, repo.ID, started.SessionID) || !strings.HasPrefix(ws.Branch, "switchboard/") || ws.BaseBranch != "main" {
		t.Errorf("workspace %+v", ws)
	}
	screenOf(started.SessionID, "at:"+ws.Path, "branch:"+ws.Branch+" base:main")
	var ses store.Session
	d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
	if ses.Workspace == nil || *ses.Workspace != *ws {
		t.Errorf("the session records %+v, want %+v", ses.Workspace, ws)
	}
	if got, err := os.ReadFile(filepath.Join(ws.Path, "a.txt")); err != nil || string(got) != "one\n" {
		t.Errorf("the worktree's a.txt is %q, %v: want the base commit's", got, err)
	}
	if after := git(t, repoDir, "status", "--porcelain"); after != before {
		t.Errorf("the person's checkout changed:\nbefore %q\nafter  %q", before, after)
	}
	if got, _ := os.ReadFile(filepath.Join(repoDir, "a.txt")); string(got) != "one, edited by the person\n" {
		t.Errorf("the person's edit is gone: %q", got)
	}

	second := startShell(mcpserver.AgentStartArgs{RepositoryID: repo.ID})
	if second.Workspace == nil || second.Workspace.Path == ws.Path || second.Workspace.Branch == ws.Branch {
		t.Errorf("two agents share a worktree: %+v and %+v", ws, second.Workspace)
	}
	for _, tc := range []struct {
		name string
		args mcpserver.AgentStartArgs
		dir  string
	}{
		{"not a git repository", mcpserver.AgentStartArgs{RepositoryID: plain.ID}, plain.Path},
		{"no worktree asked", mcpserver.AgentStartArgs{RepositoryID: repo.ID, NoWorktree: true}, repoDir},
	} {
		got := startShell(tc.args)
		if got.Workspace != nil || !strings.HasPrefix(got.Isolation, "none: ") {
			t.Errorf("%s: workspace %+v, isolation %q", tc.name, got.Workspace, got.Isolation)
		}
		real, _ := filepath.EvalSymlinks(tc.dir)
		screenOf(got.SessionID, "at:"+real, "branch: base:")
	}
	_, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID, Base: "no-such-branch"})
	if store.CodeOf(err) != store.CodeWorkspaceUnavailable {
		t.Errorf("a start from a branch that does not exist: %v, want workspace_unavailable", err)
	}

	// A worktree with work in it outlives its agent: what is in it is the
	// person's to land. One with nothing in it goes with its agent, and so
	// does its branch.
	if err := os.WriteFile(filepath.Join(ws.Path, "work.txt"), []byte("the agent's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{started.SessionID, second.SessionID} {
		if _, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// The tidy runs after the exit: the folder goes, then the branch.
	waitFor(t, func() bool {
		_, err := os.Stat(second.Workspace.Path)
		return os.IsNotExist(err) && !strings.Contains(git(t, repoDir, "branch", "--list", second.Workspace.Branch), "switchboard/")
	})
	d.stop()
	if got, err := os.ReadFile(filepath.Join(ws.Path, "work.txt")); err != nil || string(got) != "the agent's\n" {
		t.Errorf("the worktree with work in it lost it after its agent ended: %q, %v", got, err)
	}
	if after := git(t, repoDir, "status", "--porcelain"); after != before {
		t.Errorf("the person's checkout changed: %q", after)
	}
}

// At work_complete what the agent left uncommitted in its worktree becomes
// one commit of the packet's (its title, a Switchboard-Packet trailer, the
// agent as co-author) and the packet records the range and its diffstat;
// the next packet's range starts where this one ended. A file changed
// outside the packet's write scope refuses the completion and commits
// nothing. The person's checkout is never touched.
func TestCompletionCommitsInTheWorktree(t *testing.T) {
	repoDir := personRepo(t, map[string]string{"README": "hello\n"})

	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	repo := registerRepo(t, reg, repoDir)
	var err error
	started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID})
	mustOK(t, err)
	ws := started.Workspace
	if ws == nil {
		t.Fatalf("no worktree: %s", started.Isolation)
	}
	var ses store.Session
	d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
	agent := mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}

	// claim takes the next packet as the agent would.
	claim := func() (string, string) {
		t.Helper()
		got, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
		mustOK(t, err)
		if got.Packet == nil || got.Workspace == nil || got.Workspace.Path != ws.Path {
			t.Fatalf("claim: %+v, workspace %+v", got.Packet, got.Workspace)
		}
		return got.Packet.ID, got.LeaseID
	}
	write := func(name, text string) {
		t.Helper()
		mustOK(t, os.MkdirAll(filepath.Dir(filepath.Join(ws.Path, name)), 0o700))
		mustOK(t, os.WriteFile(filepath.Join(ws.Path, name), []byte(text), 0o600))
	}
	complete := func(pkt, lease string) (store.Packet, error) {
		out, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: pkt, LeaseID: lease, Summary: "done"})
		return out.Packet, err
	}
	create := func(title string, scope ...string) {
		t.Helper()
		_, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: title, WriteScope: scope})
		mustOK(t, err)
	}
	before := git(t, repoDir, "status", "--porcelain")
	headBefore := git(t, repoDir, "rev-parse", "HEAD")

	create("Add the parser", "src/")
	pkt, lease := claim()
	write("src/parse.go", "package src\n")
	write("notes.txt", "not in scope\n")
	_, err = complete(pkt, lease)
	if store.CodeOf(err) != store.CodeWriteScopeViolation || !strings.Contains(err.Error(), "notes.txt") || strings.Contains(err.Error(), "parse.go") {
		t.Fatalf("completion with a file outside the scope: %v", err)
	}
	if n := strings.TrimSpace(git(t, ws.Path, "rev-list", "--count", ws.BaseCommit+"..HEAD")); n != "0" {
		t.Errorf("a refused completion made %s commits", n)
	}
	mustOK(t, os.Remove(filepath.Join(ws.Path, "notes.txt")))
	p, err := complete(pkt, lease)
	mustOK(t, err)
	c := p.Changes
	if c == nil || c.From != ws.BaseCommit || c.Branch != ws.Branch || c.BaseBranch != "main" || c.Files != 1 || c.Added != 1 || c.Deleted != 0 {
		t.Fatalf("packet changes %+v", c)
	}
	if head := strings.TrimSpace(git(t, ws.Path, "rev-parse", "HEAD")); head != c.To {
		t.Errorf("changes end at %s, the branch at %s", c.To, head)
	}
	msg := git(t, ws.Path, "log", "-1", "--format=%an <%ae>%n%B")
	for _, want := range []string{"Dev Person <dev@example.com>", "Add the parser", "Switchboard-Packet: " + pkt, "Co-authored-by: shell (Switchboard " + ses.ID + ")"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the commit lacks %q:\n%s", want, msg)
		}
	}

	// The next packet's range starts where the last one ended; a packet
	// with no write scope may change any file.
	create("Document it")
	pkt, lease = claim()
	write("README", "hello\nand the parser\n")
	p, err = complete(pkt, lease)
	mustOK(t, err)
	if p.Changes == nil || p.Changes.From != c.To || p.Changes.Files != 1 || p.Changes.Added != 1 {
		t.Errorf("second packet's changes %+v, want from %s", p.Changes, c.To)
	}
	// The packet's diff is its commits; the session's, its worktree now.
	pd, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: pkt})
	mustOK(t, err)
	if pd.From != c.To || pd.To != p.Changes.To || !strings.Contains(pd.Diff, "+and the parser") || strings.Contains(pd.Diff, "parse.go") || pd.Stat == nil || len(pd.Stat.Files) != 1 {
		t.Errorf("work.diff = %+v", pd)
	}
	write("src/lex.go", "package src // lexer\n")
	write("README", "hello\nand the parser\nand more\n")
	sd, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodSessionDiff, mcpserver.SessionDiffArgs{SessionID: ses.ID})
	mustOK(t, err)
	if sd.From != ws.BaseCommit || !strings.Contains(sd.Diff, "+and more") || !strings.Contains(sd.Diff, "+package src") || len(sd.Untracked) != 1 || sd.Untracked[0] != "src/lex.go" {
		t.Errorf("session.diff = %+v", sd)
	}
	if after := git(t, repoDir, "status", "--porcelain"); after != before || git(t, repoDir, "rev-parse", "HEAD") != headBefore {
		t.Errorf("the person's checkout changed: %q → %q", before, after)
	}
}
