package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// A session's workspace, once recorded, comes with every packet it claims;
// a session claims only in its own repository.
func TestAwaitCarriesWorkspace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := f.registerRepo(t, "/src/a")
	b := f.registerRepo(t, "/src/b")
	tok, _ := f.createClientToken(t)
	p := TokenPrincipal(tok)

	for _, repo := range []string{a.ID, b.ID} {
		if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo, Title: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	opened := f.invoke(p, TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, a.ID))
	wantCode(t, opened, "ok")
	ses := opened.Value.(ReportResult).SessionID
	ws := store.Workspace{Path: "/data/worktrees/" + a.ID + "/" + ses, Branch: "switchboard/x-fix", BaseBranch: "main", BaseCommit: strings.Repeat("ab", 20)}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportSupervisor, MethodAgentWorkspace, AgentWorkspaceArgs{SessionID: ses, Workspace: ws}); err != nil {
		t.Fatalf("agent.workspace: %v", err)
	}

	res := f.invoke(p, TransportMCP, "work.await_packet", fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":-1}`, b.ID, ses))
	wantCode(t, res, store.CodeCapabilityScopeMismatch)
	res = f.invoke(p, TransportMCP, "work.await_packet", fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":-1}`, a.ID, ses))
	wantCode(t, res, "ok")
	got := res.Value.(AwaitResult)
	if got.Packet == nil || got.Workspace == nil || *got.Workspace != ws {
		t.Fatalf("claim %+v with workspace %+v, want %+v", got.Packet, got.Workspace, ws)
	}
}

func TestRepositoryConfigure(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	repo := f.registerRepo(t, "/src/a")
	set := RepositoryConfigureArgs{RepositoryID: repo.ID, RepositorySettings: store.RepositorySettings{Isolation: store.IsolationNone, Base: "develop"}}
	out, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodRepositoryConfigure, set)
	if err != nil || out.Repository.RepositorySettings != set.RepositorySettings {
		t.Fatalf("repository.configure = %+v, %v", out, err)
	}
	list, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodRepositoryList, NoArgs{})
	if err != nil || len(list.Repositories) != 1 || list.Repositories[0].Base != "develop" || list.Repositories[0].Isolation != store.IsolationNone {
		t.Fatalf("repository.list after configure: %+v, %v", list, err)
	}
	set.Isolation = "vm"
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodRepositoryConfigure, set); store.CodeOf(err) != store.CodeInvalidArgument {
		t.Errorf("configure with isolation vm: %v", err)
	}
}
