package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// crashKillsEnv sets how many times each crash test kills the daemon:
// `make test` runs the defaults, a soak sets 100 or more.
const crashKillsEnv = "SWITCHBOARD_CRASH_KILLS"

// crashKills is the kill count a crash test runs: def, unless
// SWITCHBOARD_CRASH_KILLS names another positive number.
func crashKills(t *testing.T, def int) int {
	t.Helper()
	v := os.Getenv(crashKillsEnv)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number of kills", crashKillsEnv, v)
	}
	return n
}

// TestKillWhileCreatingTokens SIGKILLs the daemon while CLI clients create
// tokens through it, several times, and checks after each kill that the
// database passes bbolt's check, that the audit chain verifies and that every
// token a client saw created is there.
func TestKillWhileCreatingTokens(t *testing.T) {
	d := newDirs(t)
	env := d.env(false)
	kills := crashKills(t, 5)
	begin := time.Now()
	var acked []string // key ids the CLI reported created
	// chain is how many records the audit chain held at the last check.
	chain := 0
	for round := 0; round < kills; round++ {
		p := start(t, env, "--headless")
		waitEndpoint(t, p, d, 15*time.Second)

		var mu sync.Mutex
		var wg sync.WaitGroup
		stop := make(chan struct{})
		landed := make(chan struct{}, 15) // a value for each acknowledged create
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					out, _, code := cli(t, env, "token", "create", "--json", "--label", "crash")
					if code != 0 {
						continue // the daemon died under this call: not acknowledged
					}
					var created struct {
						Token struct {
							KeyID string `json:"keyid"`
						} `json:"token"`
					}
					if json.Unmarshal([]byte(out), &created) == nil && created.Token.KeyID != "" {
						mu.Lock()
						acked = append(acked, created.Token.KeyID)
						mu.Unlock()
						select {
						case landed <- struct{}{}:
						default: // counted enough already
						}
					}
				}
			}()
		}
		// Let 15 calls land, then kill in the middle of the stream
		// (after 20 s whatever landed: the kill is the test, not the
		// count).
		enough := time.After(20 * time.Second)
	landing:
		for range 15 {
			select {
			case <-landed:
			case <-enough:
				break landing
			}
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(5 * time.Second)
		close(stop)
		wg.Wait()

		// Reopen the file directly: it must check clean and hold every
		// acknowledged token with its audit record.
		db, err := store.Open(filepath.Join(d.data, "state.db"), store.Options{})
		if err != nil {
			t.Fatalf("reopen after kill %d: %v", round+1, err)
		}
		if err := db.Check(); err != nil {
			t.Fatalf("after kill %d: %v", round+1, err)
		}
		err = db.View(context.Background(), func(tx *store.Tx) error {
			v, err := tx.VerifyAudit()
			if err != nil {
				return err
			}
			chain = v.Records
			// Every successful create's record, paging back from the
			// newest (a long run makes more than one page).
			creates := map[string]bool{}
			for before := uint64(0); ; {
				page, err := tx.QueryAudit(store.AuditFilter{Method: "token.create", Outcome: "ok", BeforeSeq: before, Limit: 1000})
				if err != nil {
					return err
				}
				for _, r := range page {
					creates[r.ID] = true
					before = r.Seq
				}
				if len(page) < 1000 {
					break
				}
			}
			for _, id := range acked {
				if _, ok, err := tx.Token(id); err != nil || !ok {
					t.Errorf("acknowledged token %s missing after kill %d", id, round+1)
				}
			}
			if len(creates) < len(acked) {
				t.Errorf("%d acknowledged creates but %d audit records", len(acked), len(creates))
			}
			return nil
		})
		db.Close()
		if err != nil {
			t.Fatalf("after kill %d: %v", round+1, err)
		}
		// The runtime files of the dead process are stale; the next start
		// must cope with them.
		if _, err := os.Stat(filepath.Join(d.run, "control.sock")); err != nil {
			t.Logf("no stale socket after kill (%v)", err)
		}
	}
	t.Logf("kills survived %d, acknowledged calls checked %d, audit records verified %d (in %s)",
		kills, len(acked), chain, time.Since(begin).Round(100*time.Millisecond))
	if len(acked) < kills*10 {
		t.Fatalf("only %d tokens acknowledged: the load did not run", len(acked))
	}
	if strings.Contains(strings.Join(acked, ""), "sbt_") {
		t.Fatal("key ids look like tokens")
	}
}
