package mcpserver

import (
	"context"
	"os"
	"path/filepath"
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
