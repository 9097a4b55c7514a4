package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// Many concurrent callers: every call is acknowledged once, every audit
// record is there exactly once, and the chain verifies.
func TestGroupCommitConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	tok, _ := f.createClientToken(t)
	const workers, each = 32, 25
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res := f.reg.Invoke(t.Context(), TokenPrincipal(tok), TransportMCP, "status", nil)
				if res.Err != nil {
					t.Errorf("status: %v", res.Err)
					return
				}
				ids <- res.AuditID
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("audit id %s handed to two calls", id)
		}
		seen[id] = true
	}
	f.view(t, func(tx *store.Tx) error {
		v, err := tx.VerifyAudit()
		if err != nil {
			return err
		}
		if v.Records != workers*each {
			t.Errorf("%d audit records, want %d", v.Records, workers*each)
		}
		return nil
	})
	if len(seen) != workers*each {
		t.Fatalf("%d calls acknowledged, want %d", len(seen), workers*each)
	}
}

// A caller that left before its batch committed is answered with its
// context's error and its writes are not made; the rest of its batch
// commits.
func TestGroupCommitCallerThatLeft(t *testing.T) {
	f := newFixture(t)
	g := newGroupCommitter(f.db)
	release, started := make(chan struct{}), make(chan struct{})
	go g.update(context.Background(), func(tx *store.Tx) error {
		close(started)
		<-release
		return nil
	})
	<-started
	left, leave := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		ctx := context.Background()
		if i == 1 {
			ctx = left
		}
		wg.Go(func() {
			errs[i] = g.update(ctx, func(tx *store.Tx) error { return tx.SetSetting(fmt.Sprintf("k%d", i), "v") })
		})
	}
	for queued := 0; queued < len(errs); {
		g.mu.Lock()
		queued = len(g.pending)
		g.mu.Unlock()
	}
	leave()
	close(release)
	wg.Wait()
	for i, err := range errs {
		if (i == 1) != errors.Is(err, context.Canceled) || (i != 1 && err != nil) {
			t.Errorf("request %d: %v", i, err)
		}
	}
	f.view(t, func(tx *store.Tx) error {
		for i := range errs {
			if got := tx.Setting(fmt.Sprintf("k%d", i)); (got == "v") != (i != 1) {
				t.Errorf("setting k%d = %q after the batch", i, got)
			}
		}
		return nil
	})
}

// A failing member of a batch is answered with its own error, its writes
// roll back, and the others commit.
func TestGroupCommitFailureIsolated(t *testing.T) {
	f := newFixture(t)
	g := newGroupCommitter(f.db)
	// Hold the lead so that the requests below queue into one batch.
	release := make(chan struct{})
	started := make(chan struct{})
	go g.update(context.Background(), func(tx *store.Tx) error {
		close(started)
		<-release
		return nil
	})
	<-started
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.update(context.Background(), func(tx *store.Tx) error {
				if err := tx.SetSetting(fmt.Sprintf("k%d", i), "v"); err != nil {
					return err
				}
				if i == 2 {
					return errors.New("boom")
				}
				return nil
			})
		}()
	}
	// Wait until all five are queued behind the leader.
	for {
		g.mu.Lock()
		n := len(g.pending)
		g.mu.Unlock()
		if n == 5 {
			break
		}
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if (i == 2) != (err != nil) {
			t.Errorf("request %d: %v", i, err)
		}
	}
	f.view(t, func(tx *store.Tx) error {
		for i := range errs {
			if got := tx.Setting(fmt.Sprintf("k%d", i)); (got == "v") != (i != 2) {
				t.Errorf("setting k%d = %q after the batch", i, got)
			}
		}
		return nil
	})
}

// BenchmarkRegistryInvokeParallel measures audited calls through the group
// committer with many callers at once (go test -cpu sets the parallelism).
func BenchmarkRegistryInvokeParallel(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	b.SetParallelism(8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res := f.reg.Invoke(b.Context(), p, TransportMCP, "status", nil); res.Err != nil {
				b.Error(res.Err)
				return
			}
		}
	})
}

// A long poll that finds nothing yet leaves its batch alone: its first try
// commits with the others rather than failing, which would roll them back
// and run them again.
func TestEmptyLongPollKeepsItsBatch(t *testing.T) {
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, t.TempDir())
	p := TokenPrincipal(f.token(t, f.clientKeyID(t)))
	opened := f.invoke(p, TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID))
	wantCode(t, opened, "ok")
	ses := opened.Value.(ReportResult).SessionID

	g := f.reg.commit
	queued := func(n int) {
		for {
			g.mu.Lock()
			got := len(g.pending)
			g.mu.Unlock()
			if got == n {
				return
			}
			runtime.Gosched()
		}
	}
	// Hold the lead so that the poll's first try and another call's write
	// queue into one batch.
	release, started := make(chan struct{}), make(chan struct{})
	go g.update(context.Background(), func(tx *store.Tx) error {
		close(started)
		<-release
		return nil
	})
	<-started
	// The write first: the poll's failing try would come after it ran.
	var runs atomic.Int32
	wrote := make(chan error, 1)
	go func() {
		wrote <- g.update(context.Background(), func(tx *store.Tx) error {
			runs.Add(1)
			return tx.SetSetting("beside-the-poll", "v")
		})
	}()
	queued(1)
	ctx, cancel := context.WithCancel(context.Background())
	polled := make(chan error, 1)
	go func() {
		_, err := Invoke(ctx, f.reg, p, TransportMCP, MethodWorkAwaitPacket, AwaitArgs{RepositoryID: repo.ID, SessionID: ses, WaitSeconds: 60})
		polled <- err
	}()
	queued(2)
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	cancel() // the poll's last try, now
	if err := <-polled; err != nil {
		t.Fatalf("the poll: %v", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the write beside an empty long poll ran %d times, want once", n)
	}
}
