package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Without --database, team status says the store is this instance's file.
func TestTeamStatusAlone(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	out := h.ok("team", "status").stdout
	if !strings.Contains(out, "Not in team mode") || !strings.Contains(out, h.paths.DB()) {
		t.Errorf("team status alone:\n%s", out)
	}
}

// Two instances (two data folders, as two machines) on one real PostgreSQL
// server: a clone registered under the repository's name on the second is
// the same repository with its own folder, a packet created on one is seen
// on the other, team status lists both running, and the audit chain
// verifies from both. The second instance's CLI works on the shared store
// with no daemon of its own, as the first's goes through its socket.
func TestTeamOfTwoInstances(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.CreateDatabase(t, "team")
	a, b := newHarness(t), newHarness(t)
	for _, h := range []*harness{a, b} {
		h.env[cli.DatabaseEnv] = url
	}
	da, err := daemon.Start(context.Background(), daemon.Config{Paths: a.paths, Keyring: a.kr, Version: "v-a", DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer da.Close(context.Background())

	repoA := filepath.Join(t.TempDir(), "app")
	repoB := filepath.Join(t.TempDir(), "elsewhere", "app")
	for _, d := range []string{repoA, repoB} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	idA := line(a.ok("repo", "add", repoA).stdout)
	idB := line(b.ok("repo", "add", repoB, "--name", "app").stdout)
	if idA != idB {
		t.Fatalf("the clone on B is repository %s, A's is %s", idB, idA)
	}
	var reposB mcpserver.RepositoryList
	b.jsonOut(&reposB, "repo", "list", "--json")
	if len(reposB.Repositories) != 1 || reposB.Repositories[0].Path != repoB {
		t.Errorf("B's repositories: %+v", reposB.Repositories)
	}
	pkt := line(a.ok("work", "create", "--repo", idA, "--title", "shared").stdout)
	if out := b.ok("work", "list").stdout; !strings.Contains(out, pkt) {
		t.Errorf("B does not see the packet %s made on A:\n%s", pkt, out)
	}

	db, err := daemon.Start(context.Background(), daemon.Config{Paths: b.paths, Keyring: b.kr, Version: "v-b", DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var st mcpserver.TeamStatus
	a.jsonOut(&st, "team", "status", "--json")
	running := 0
	for _, in := range st.Instances {
		if in.State == "running" {
			running++
		}
	}
	if !st.Team || len(st.Instances) != 2 || running != 2 || st.Queue[store.PacketQueued] != 1 {
		t.Errorf("team status from A: %+v", st)
	}
	text := b.ok("team", "status").stdout
	for _, want := range []string{"(this one)", "running", "1 queued"} {
		if !strings.Contains(text, want) {
			t.Errorf("team status from B lacks %q:\n%s", want, text)
		}
	}
	for _, h := range []*harness{a, b} {
		if out := h.ok("audit", "--verify").stdout; !strings.Contains(out, "audit chain OK") {
			t.Errorf("audit --verify:\n%s", out)
		}
		if out := h.ok("audit").stdout; !strings.Contains(out, "INSTANCE") {
			t.Errorf("the audit table names no instance:\n%s", out)
		}
	}
}
