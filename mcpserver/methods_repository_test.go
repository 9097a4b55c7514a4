package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// A repository is renamed and removed by the person; removal waits for its
// agents' worktrees to be landed or discarded, and leaves its folder alone.
func TestRepositoryRenameAndRemove(t *testing.T) {
	f := newFixture(t)
	f.reg.worktrees = t.TempDir()
	folder := t.TempDir()
	repo := f.registerRepo(t, folder)
	ctx := context.Background()
	renamed, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryRename, RepositoryRenameArgs{RepositoryID: repo.ID, Name: "service"})
	if err != nil || renamed.Repository.Name != "service" {
		t.Fatalf("rename: %+v, %v", renamed.Repository, err)
	}
	left := filepath.Join(f.reg.worktrees, repo.ID, "ses_1")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryRemove, RepositoryArgs{RepositoryID: repo.ID}); store.CodeOf(err) != store.CodeInvalidState {
		t.Fatalf("remove with a worktree left: %v, want invalid_state", err)
	}
	if err := os.Remove(left); err != nil {
		t.Fatal(err)
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryRemove, RepositoryArgs{RepositoryID: repo.ID}); err != nil {
		t.Fatalf("remove: %v", err)
	}
	list, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryList, NoArgs{})
	if err != nil || len(list.Repositories) != 0 {
		t.Errorf("after removal the list holds %+v (%v)", list.Repositories, err)
	}
	if _, err := os.Stat(folder); err != nil {
		t.Errorf("the repository's folder went with it: %v", err)
	}
}

// An empty repository: an agent's worktree is refused as repository_empty,
// the person's first commit (an empty one) makes it startable, and a
// second is refused; an agent's token may not make one.
func TestRepositoryFirstCommit(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.reg.worktrees = t.TempDir()
	dir := t.TempDir()
	testGit(t, dir, "init", "-q", "-b", "main")
	testGit(t, dir, "config", "user.name", "Test Person")
	testGit(t, dir, "config", "user.email", "person@example.test")
	repo := f.registerRepo(t, dir)
	if _, _, err := f.reg.workspaceFor(ctx, "ses_1", worktreePlan{repo: repo, isolation: store.IsolationWorktree, slug: "x"}); store.CodeOf(err) != store.CodeRepositoryEmpty {
		t.Fatalf("a worktree of an empty repository: %v; want repository_empty", err)
	}
	_, raw := f.createClientToken(t)
	tok, _ := f.authenticate(t, raw)
	if _, err := Invoke(ctx, f.reg, TokenPrincipal(tok), TransportMCP, MethodRepositoryFirstCommit, RepositoryArgs{RepositoryID: repo.ID}); err == nil {
		t.Fatal("an agent's token made a first commit")
	}
	made, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryFirstCommit, RepositoryArgs{RepositoryID: repo.ID})
	if err != nil || made.Branch != "main" || made.Commit != strings.TrimSpace(testGit(t, dir, "rev-parse", "main")) {
		t.Fatalf("first commit: %+v, %v", made, err)
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodRepositoryFirstCommit, RepositoryArgs{RepositoryID: repo.ID}); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("a second first commit: %v; want invalid_state", err)
	}
}
