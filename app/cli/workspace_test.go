package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
)

// workspace list shows each worktree's disk use in a DISK column, in
// binary units, and --json carries it in bytes.
func TestWorkspaceListDisk(t *testing.T) {
	h := newHarness(t)
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
	t.Setenv("SHELL", "/bin/sh")
	d := h.start()
	t.Cleanup(func() { d.Close(context.Background()) })
	reg := d.Registry()
	repo, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir})
	if err != nil {
		t.Fatal(err)
	}
	started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.Repository.ID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: started.SessionID})
	})

	var list mcpserver.WorkspaceList
	h.jsonOut(&list, "workspace", "list", "--json")
	if len(list.Workspaces) != 1 || list.Workspaces[0].SessionID != started.SessionID {
		t.Fatalf("workspace list --json: %+v", list)
	}
	path := list.Workspaces[0].Workspace.Path
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 31)
	}
	if err := os.WriteFile(filepath.Join(path, "out.bin"), data, 0o600); err != nil {
		t.Fatal(err)
	}

	h.jsonOut(&list, "workspace", "list", "--json")
	if got := list.Workspaces[0].DiskBytes; got < 3<<20 || got > 4<<20 {
		t.Errorf("disk_bytes = %d after writing 3 MiB", got)
	}
	r := h.ok("workspace", "list")
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 2 {
		t.Fatalf("workspace list:\n%s", r.stdout)
	}
	head := regexp.MustCompile(`\S+`).FindAllStringIndex(rows[0], -1)
	names := regexp.MustCompile(`\S+`).FindAllString(rows[0], -1)
	col := -1
	for i, n := range names {
		if n == "DISK" {
			col = head[i][0]
		}
	}
	if col < 0 {
		t.Fatalf("no DISK column in %q", rows[0])
	}
	if disk := strings.Fields(rows[1][col:])[0:2]; disk[0] != "3.0" || disk[1] != "MiB" {
		t.Errorf("the DISK column says %q:\n%s", disk, r.stdout)
	}
	// Without --yes, discard says what it would remove, and how much.
	if r := h.fails(2, "workspace", "discard", started.SessionID); !strings.Contains(r.stderr, path+" (3.0 MiB)") {
		t.Errorf("workspace discard without --yes:\n%s", r.stderr)
	}
}
