package mcpserver

import (
	"context"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

func TestInvokeTyped(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	repo, err := Invoke(ctx, f.reg, Operator, TransportGUI, MethodRepositoryRegister, RepositoryRegisterArgs{Path: "/src/app", Name: "app"})
	if err != nil || !repo.Created || repo.Repository.Name != "app" {
		t.Fatalf("repository.register = %+v, %v", repo, err)
	}
	list, err := Invoke(ctx, f.reg, Operator, TransportGUI, MethodRepositoryList, NoArgs{})
	if err != nil || len(list.Repositories) != 1 || list.Repositories[0].ID != repo.Repository.ID {
		t.Fatalf("repository.list = %+v, %v", list, err)
	}
	// A denial comes back as the error, with its code.
	_, err = Invoke(ctx, f.reg, Operator, TransportGUI, MethodWorkGet, WorkGetArgs{PacketID: "pkt_nope"})
	if store.CodeOf(err) != store.CodeNotFound {
		t.Fatalf("work.get of nothing: %v, want not_found", err)
	}
}

// A value of another type than Out (a Then hook's) is converted through
// JSON; one that cannot be is an error, not a zero value.
func TestResultAs(t *testing.T) {
	got, err := resultAs[RepositoryList]("x", map[string]any{"repositories": []any{map[string]any{"id": "repo_1"}}})
	if err != nil || len(got.Repositories) != 1 || got.Repositories[0].ID != "repo_1" {
		t.Fatalf("resultAs = %+v, %v", got, err)
	}
	if _, err := resultAs[RepositoryList]("x", "not an object"); err == nil {
		t.Fatal("resultAs of a string into a struct: no error")
	}
}
