package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// workspace.list measures each worktree's folder: a worktree with a
// 300 KiB build output says so, one whose folder is gone has no figure.
func TestWorkspaceListDiskBytes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	repoDir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=T", "-c", "user.email=t@example.test", "commit", "-q", "--allow-empty", "-m", "first"},
	} {
		if _, err := gitcmd.Run(ctx, repoDir, args...); err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
	}
	repo := f.registerRepo(t, repoDir)
	tok, _ := f.createClientToken(t)
	root := t.TempDir()

	open := func() (string, workspace.Workspace) {
		t.Helper()
		res := f.invoke(TokenPrincipal(tok), TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID))
		wantCode(t, res, "ok")
		ses := res.Value.(ReportResult).SessionID
		made, err := workspace.Create(ctx, workspace.Spec{RepoPath: repoDir, Root: root, RepositoryID: repo.ID, SessionID: ses, Slug: "disk"})
		if err != nil {
			t.Fatal(err)
		}
		ws := store.Workspace{Path: made.Path, Branch: made.Branch, BaseBranch: made.BaseBranch, BaseCommit: made.BaseCommit}
		if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportSupervisor, MethodAgentWorkspace, AgentWorkspaceArgs{SessionID: ses, Workspace: ws}); err != nil {
			t.Fatal(err)
		}
		return ses, made
	}
	big, bigWS := open()
	if err := os.MkdirAll(filepath.Join(bigWS.Path, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i * 31)
	}
	if err := os.WriteFile(filepath.Join(bigWS.Path, "build", "out.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	gone, goneWS := open()
	if _, err := gitcmd.Run(ctx, repoDir, "worktree", "remove", goneWS.Path); err != nil {
		t.Fatal(err)
	}

	list, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkspaceList, NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]WorkspaceEntry{}
	for _, e := range list.Workspaces {
		got[e.SessionID] = e
	}
	if e := got[big]; e.DiskBytes < 300<<10 || e.DiskBytes > 1<<20 || e.State == nil || !e.State.Dirty {
		t.Errorf("the worktree with 300 KiB in build/: %+v", e)
	}
	if e := got[gone]; !e.Gone || e.DiskBytes != 0 {
		t.Errorf("the removed worktree: %+v", e)
	}
}
