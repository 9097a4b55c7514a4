package mcpserver

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/store"
)

// A call resolves its packet and its session once per transaction and hands
// them on: work.complete in a worktree (its Prepare's read, then the write)
// looks each up at most twice, whatever its authorization, its handler, its
// usage, its audit record and its trace event need of them.
func TestCompleteReadsEachObjectTwice(t *testing.T) {
	reads := &store.Reads{}
	f := &fixture{clock: coretest.NewClock(), env: &coretest.Env{}, logs: &coretest.SyncBuffer{}}
	f.db = stores.Open(t, store.Options{Now: f.clock.Now, Reads: reads})
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.reg = New(f.db, Options{Version: testVersion, Env: f.env, Log: f.log})
	f.createClientToken(t)
	repo := f.registerRepo(t, personGitRepo(t, map[string]string{"README": "hello\n"}))
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(context.Background(), f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "Greet"}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "hello.txt"), "hello\n")

	packets, sessions := reads.Packets.Load(), reads.Sessions.Load()
	p, err := a.complete(got)
	if err != nil || p.Changes == nil {
		t.Fatalf("complete: %+v, %v", p.Changes, err)
	}
	if n := reads.Packets.Load() - packets; n > 2 {
		t.Errorf("work.complete read its packet %d times; at most 2 (once per transaction)", n)
	}
	if n := reads.Sessions.Load() - sessions; n > 2 {
		t.Errorf("work.complete read its session %d times; at most 2 (once per transaction)", n)
	}
}
