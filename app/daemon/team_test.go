package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// One data folder is one instance, run by one process at a time, whatever
// the store: in team mode no database file lock says so, and bbolt's lock
// guards only its file. Two processes running one instance would each end
// the other's sessions as an earlier run's, or supervise agents in the
// same worktrees. A second start on the same data folder, with a runtime
// folder of its own (so no control socket answers it first), is refused
// as already running; once the first stops, it starts.
func TestOneProcessPerInstance(t *testing.T) {
	url := pgtest.Start(t).CreateDatabase(t, "team")
	for _, tt := range []struct{ name, first, second string }{
		{"team twice", url, url},
		{"team then bbolt", url, ""},
		{"bbolt then team", "", url},
		{"bbolt twice", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newPaths(t)
			first, err := Start(context.Background(), Config{Paths: p, Keyring: keyring.NewMemory(), DatabaseURL: tt.first})
			if err != nil {
				t.Fatal(err)
			}
			other := Paths{Data: p.Data, Runtime: filepath.Join(shortDir(t), "run")}
			_, err = Start(context.Background(), Config{Paths: other, Keyring: keyring.NewMemory(), DatabaseURL: tt.second})
			var running *AlreadyRunningError
			if !errors.As(err, &running) {
				t.Fatalf("a second process on the instance's data folder: %v, want already running", err)
			}
			if err := first.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			again, err := Start(context.Background(), Config{Paths: other, Keyring: keyring.NewMemory(), DatabaseURL: tt.second})
			if err != nil {
				t.Fatalf("after the first stopped: %v", err)
			}
			again.Close(context.Background())
		})
	}
}

// An instance that another took for lost while it was only silent (its
// sessions ended, their tokens revoked) learns it at its next heartbeat
// and stops those agents, rather than showing them running with tokens
// that no longer work. The other instance's clock runs an hour ahead,
// which is this one having been silent for an hour.
func TestSweptInstanceStopsItsAgents(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	url := pgtest.Start(t).CreateDatabase(t, "team")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory(), DatabaseURL: url, Heartbeat: 50 * time.Millisecond})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
	s, ok := d.Registry().Agents().Get(started.SessionID)
	if !ok {
		t.Fatal("the agent is not running")
	}

	other, err := store.OpenPostgres(url, store.Options{Instance: store.NewInstanceID(), Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	reg := mcpserver.New(other, mcpserver.Options{InstanceGrace: time.Minute})
	if _, err := reg.BeatInstance(context.Background(), store.InstanceBeat{Host: "other", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	swept, err := reg.SweepLostInstances(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(swept.Sessions, started.SessionID) {
		t.Fatalf("the sweep ended %v, not the agent's session %s", swept.Sessions, started.SessionID)
	}
	// A stop takes its grace and a second; a minute is only there so that
	// a failure ends the test rather than hanging it.
	select {
	case <-s.Done():
	case <-time.After(time.Minute):
		t.Fatal("the swept session's agent still runs a minute after the sweep")
	}
}
