package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
)

// fakeClock is a settable clock for Options.Now. It is safe for concurrent
// use because View and Update may read it from several goroutines.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// openTestDB opens a fresh database in t.TempDir() and closes it when the
// test ends.
func openTestDB(t testing.TB, opts Options) *DB {
	t.Helper()
	if pgServer != nil {
		return openPGTestDB(t, opts)
	}
	db, err := Open(filepath.Join(t.TempDir(), "state.db"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustUpdate(t testing.TB, db *DB, fn func(*Tx) error) {
	t.Helper()
	if err := db.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func mustView(t testing.TB, db *DB, fn func(*Tx) error) {
	t.Helper()
	if err := db.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// Helper-process pattern: the test binary re-executes itself with
// -test.run=^TestHelperProcess$ and these variables set; TestHelperProcess
// then does the child's part and exits.
const (
	envHelperMode = "SWITCHBOARD_STORE_TEST_HELPER"
	envHelperDB   = "SWITCHBOARD_STORE_TEST_DB"
)

// helperCommand builds the command that runs the child side of mode.
// The child is killed if ctx ends first.
func helperCommand(ctx context.Context, t *testing.T, mode, dbPath string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestHelperProcess$", "-test.count=1")
	// The child opens a bbolt file and ends by os.Exit or SIGKILL, so its
	// TestMain must not start a PostgreSQL server for the suite (initdb
	// and a start for nothing, and a server no cleanup ever stops).
	cmd.Env = append(os.Environ(), envHelperMode+"="+mode, envHelperDB+"="+dbPath, pgtest.SuiteEnv+"=")
	return cmd
}

// TestHelperProcess is not a real test: it is the child side of the
// cross-process tests and does nothing unless envHelperMode is set.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envHelperMode)
	if mode == "" {
		t.Skip("child side of the cross-process tests")
	}
	path := os.Getenv(envHelperDB)
	switch mode {
	case "open":
		// Try to open the database with a short lock timeout and report the
		// outcome on stdout: "ok", "locked <elapsed>" or "error <text>".
		start := time.Now()
		db, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
		elapsed := time.Since(start)
		switch {
		case err == nil:
			db.Close()
			fmt.Println("ok")
		case errors.Is(err, ErrLocked):
			fmt.Printf("locked %s\n", elapsed)
		default:
			fmt.Printf("error %v\n", err)
		}
		os.Exit(0)
	case "durability":
		// Create tokens forever, each with its audit record in the same
		// Update, and print each key id once its Update has returned. The
		// parent kills this process with SIGKILL.
		db, err := Open(path, Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "open:", err)
			os.Exit(2)
		}
		for {
			var keyID string
			err := db.Update(context.Background(), func(tx *Tx) error {
				tok, _, err := tx.CreateToken(TokenSpec{Label: "durability", Kind: KindSession})
				if err != nil {
					return err
				}
				keyID = tok.KeyID
				return tx.AppendAudit(&AuditRecord{Transport: "gui", KeyID: tok.KeyID, Method: "token.create", Outcome: "ok"})
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "update:", err)
				os.Exit(2)
			}
			// One write per line, so a kill never leaves half a key id
			// that looks whole.
			os.Stdout.Write([]byte(keyID + "\n"))
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		os.Exit(2)
	}
}

// fileBytes reads a whole file; used to scan the raw database for secrets.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func containsAny(haystack []byte, needles ...string) (string, bool) {
	for _, n := range needles {
		if n != "" && bytes.Contains(haystack, []byte(n)) {
			return n, true
		}
	}
	return "", false
}
