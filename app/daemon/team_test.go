package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// One data folder is one instance, run by one process at a time: in team
// mode no database file lock says so, and two processes running one
// instance would each end the other's sessions as an earlier run's. A
// second start on the same data folder, with a runtime folder of its own
// (so no control socket answers it first), is refused as already running;
// once the first stops, it starts.
func TestOneProcessPerInstance(t *testing.T) {
	url := pgtest.Start(t).CreateDatabase(t, "team")
	p := newPaths(t)
	first, err := Start(context.Background(), Config{Paths: p, Keyring: keyring.NewMemory(), DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	other := Paths{Data: p.Data, Runtime: filepath.Join(shortDir(t), "run")}
	_, err = Start(context.Background(), Config{Paths: other, Keyring: keyring.NewMemory(), DatabaseURL: url})
	var running *AlreadyRunningError
	if !errors.As(err, &running) {
		t.Fatalf("a second process on the instance's data folder: %v, want already running", err)
	}
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	again, err := Start(context.Background(), Config{Paths: other, Keyring: keyring.NewMemory(), DatabaseURL: url})
	if err != nil {
		t.Fatalf("after the first stopped: %v", err)
	}
	again.Close(context.Background())
}
