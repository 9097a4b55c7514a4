// Command soak runs the real daemon under a bounded load on loopback and
// checks that it comes back to rest: 200 MCP clients mixing reads and
// mutating calls and 100 open SSE streams for a minute (by default), then
// no call failed, no goroutine or file descriptor was leaked, and the heap
// is back within 20% of where it started. It stops by itself and exits
// non-zero when a check fails (`make soak`).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

func main() {
	// The daemons started here confine their agents with this binary.
	confine.RunHelper(os.Args)
	runtime.MemProfileRate = heapSampleRate // before anything worth sampling
	duration := flag.Duration("duration", time.Minute, "how long the load runs")
	clients := flag.Int("clients", 200, "concurrent MCP clients")
	streams := flag.Int("sse", 100, "open legacy SSE streams")
	flag.Parse()
	if err := run(*duration, *clients, *streams); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// counts are what the clients saw.
type counts struct {
	calls, reads, writes, claims, failures, sseEvents atomic.Int64
	firstFailure                                      atomic.Value // string
}

func (c *counts) fail(format string, args ...any) {
	c.failures.Add(1)
	c.firstFailure.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

func run(duration time.Duration, nClients, nStreams int) error {
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	paths := daemon.Paths{Data: filepath.Join(dir, "data"), Runtime: filepath.Join(dir, "run")}
	d, err := daemon.Start(context.Background(), daemon.Config{
		Paths:   paths,
		Keyring: keyring.NewMemory(), Log: log, Version: "soak",
	})
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			d.Close(context.Background())
		}
	}()
	reg := d.Registry()
	operator := func(method string, args any, out any) error {
		b, _ := json.Marshal(args)
		res := reg.Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, method, b)
		if res.Err != nil {
			return fmt.Errorf("%s: %w", method, res.Err)
		}
		if out != nil {
			v, _ := json.Marshal(res.Value)
			return json.Unmarshal(v, out)
		}
		return nil
	}
	var repo mcpserver.RepositoryRegistered
	if err := operator("repository.register", map[string]string{"path": dir}, &repo); err != nil {
		return err
	}
	// The SSE streams need several tokens: one token may hold 16.
	var tokens []string
	for i := 0; i < nStreams/16+1; i++ {
		var created mcpserver.TokenCreated
		if err := operator("token.create", mcpserver.TokenCreateArgs{Label: fmt.Sprint("soak ", i)}, &created); err != nil {
			return err
		}
		tokens = append(tokens, created.Secret)
	}
	client, err := d.ClientToken()
	if err != nil {
		return err
	}
	endpoint := d.Endpoint()

	tr := &http.Transport{MaxIdleConnsPerHost: nClients + nStreams, IdleConnTimeout: 5 * time.Second}
	httpc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var c counts
	// load runs the clients and the streams for dur, then lets the
	// connections go.
	load := func(dur time.Duration) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), dur)
		defer cancel()
		var wg sync.WaitGroup
		// Feeders keep work in the queue for the claims: each create waits
		// for its commit, ~0.1 s under this load, so one would not do.
		for range 16 {
			wg.Go(func() {
				for ctx.Err() == nil {
					if err := operator("work.create", map[string]any{"repository_id": repo.Repository.ID, "title": "soak"}, nil); err != nil && ctx.Err() == nil {
						c.fail("%v", err)
					}
				}
			})
		}
		for i := range nStreams {
			wg.Go(func() { sse(ctx, httpc, endpoint, tokens[i/16], &c) })
		}
		for i := range nClients {
			wg.Go(func() { agent(ctx, httpc, endpoint, client, repo.Repository.ID, i, &c) })
		}
		start := time.Now()
		wg.Wait()
		tr.CloseIdleConnections()
		return time.Since(start)
	}
	// settle waits for the daemon to come back to rest (or for a while).
	settle := func(against *rest) rest {
		var r rest
		deadline := time.Now().Add(15 * time.Second)
		for {
			time.Sleep(500 * time.Millisecond)
			r = measure()
			if against == nil || r.settledAgainst(*against) || time.Now().After(deadline) {
				return r
			}
		}
	}

	// A warm-up first: caches, pools and the database's free list grow to
	// their working size; a leak is what keeps growing after that.
	load(min(duration/6, 10*time.Second))
	time.Sleep(time.Second)
	before := settle(nil)
	c = counts{}
	elapsed := load(duration)
	after := settle(&before)
	if err := d.Close(context.Background()); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	closed = true

	fmt.Printf("soak: %d clients and %d SSE streams for %v on %s, GOMAXPROCS=%d\n", nClients, nStreams, elapsed.Round(time.Millisecond), runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Printf("  calls %d (%.0f/s): %d reads, %d mutating (%d claims); %d SSE events; failures %d\n",
		c.calls.Load(), float64(c.calls.Load())/elapsed.Seconds(), c.reads.Load(), c.writes.Load(), c.claims.Load(), c.sseEvents.Load(), c.failures.Load())
	fmt.Printf("  at rest before: %s\n  at rest after:  %s\n", before, after)
	if fi, err := os.Stat(paths.DB()); err == nil {
		fmt.Printf("  database %.0f MB\n", float64(fi.Size())/1e6)
	}
	var problems []string
	if n := c.failures.Load(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d failed calls, the first: %v", n, c.firstFailure.Load()))
	}
	if !after.settledAgainst(before) {
		problems = append(problems, "the daemon did not come back to rest: "+after.diff(before))
	}
	if c.calls.Load() == 0 || c.sseEvents.Load() < int64(nStreams) {
		problems = append(problems, "the load did not run")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	fmt.Println("  ok: no failure, no leaked goroutine or file descriptor, heap (less bbolt's page bookkeeping) within 20%")
	return nil
}

// rest is the process at rest: what a leak would grow.
type rest struct {
	goroutines, fds int
	// heap is the live heap; pages the part of it that is bbolt's
	// bookkeeping of the database's pages (its free list, and the map of
	// which transaction allocated each page taken from it), which grows
	// with the pages the load writes, about 1% of the data, and is not a
	// leak. The 20% bound is on heap less pages.
	heap, pages uint64
}

// heapSampleRate is the heap profile's sampling interval during the soak:
// fine enough to attribute the few megabytes of bbolt's bookkeeping.
const heapSampleRate = 16 << 10

func measure() rest {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ents, _ := os.ReadDir("/proc/self/fd")
	return rest{goroutines: runtime.NumGoroutine(), fds: len(ents), heap: ms.HeapAlloc, pages: pageBookkeeping()}
}

// pageBookkeeping estimates the live heap allocated by bbolt's free list
// from the heap profile, scaled as pprof scales its samples.
func pageBookkeeping() uint64 {
	n, _ := runtime.MemProfile(nil, false)
	recs := make([]runtime.MemProfileRecord, n+64)
	n, ok := runtime.MemProfile(recs, false)
	if !ok {
		return 0
	}
	var total float64
	for _, r := range recs[:n] {
		count, size := r.InUseObjects(), r.InUseBytes()
		if count <= 0 || size <= 0 || !inFreelist(r.Stack()) {
			continue
		}
		// Each object is sampled with probability 1-exp(-size/rate).
		avg := float64(size) / float64(count)
		total += float64(size) / (1 - math.Exp(-avg/heapSampleRate))
	}
	return uint64(total)
}

func inFreelist(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "go.etcd.io/bbolt/internal/freelist.") {
			return true
		}
		if !more {
			return false
		}
	}
}

// settledAgainst allows the heap, less bbolt's page bookkeeping, 20% (and a
// megabyte, for a heap that starts tiny) and a couple of goroutines and
// descriptors of the runtime's own (timers, the GC).
func (r rest) settledAgainst(b rest) bool {
	return r.goroutines <= b.goroutines+2 && r.fds <= b.fds+2 && float64(r.heap-r.pages) <= float64(b.heap-b.pages)*1.2+1<<20
}

func (r rest) diff(b rest) string {
	return fmt.Sprintf("goroutines %d → %d, fds %d → %d, heap %.1f → %.1f MB (less bbolt's page bookkeeping %.1f → %.1f MB)",
		b.goroutines, r.goroutines, b.fds, r.fds, float64(b.heap)/1e6, float64(r.heap)/1e6, float64(b.heap-b.pages)/1e6, float64(r.heap-r.pages)/1e6)
}

func (r rest) String() string {
	return fmt.Sprintf("%d goroutines, %d fds, heap %.1f MB of which bbolt's page bookkeeping %.1f MB", r.goroutines, r.fds, float64(r.heap)/1e6, float64(r.pages)/1e6)
}

// agent is one MCP client: it registers a session, then loops over reads
// (status, work_list), heartbeats, and claims it completes.
func agent(ctx context.Context, hc *http.Client, endpoint, token, repo string, id int, c *counts) {
	call := func(name string, args map[string]any) (map[string]any, bool) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		req, _ := http.NewRequestWithContext(ctx, "POST", endpoint, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				c.fail("%s: %v", name, err)
			}
			return nil, false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		c.calls.Add(1)
		var out struct {
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Result map[string]any `json:"result"`
					Error  string         `json:"error"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || out.Result.IsError {
			if ctx.Err() == nil {
				c.fail("%s: HTTP %d %s", name, resp.StatusCode, strings.TrimSpace(string(b)))
			}
			return nil, false
		}
		return out.Result.StructuredContent.Result, true
	}
	ready, ok := call("session_report", map[string]any{"kind": "ready", "repository_id": repo})
	if !ok {
		return
	}
	ses, _ := ready["session_id"].(string)
	for n := 0; ctx.Err() == nil; n++ {
		switch n % 5 {
		case 0, 1:
			if _, ok := call("status", map[string]any{}); ok {
				c.reads.Add(1)
			}
		case 2:
			if _, ok := call("work_list", map[string]any{"repository_id": repo, "limit": 5}); ok {
				c.reads.Add(1)
			}
		case 3:
			if _, ok := call("session_report", map[string]any{"kind": "heartbeat", "session_id": ses, "text": "soaking"}); ok {
				c.writes.Add(1)
			}
		case 4:
			got, ok := call("work_await_packet", map[string]any{"repository_id": repo, "session_id": ses, "wait_seconds": 1})
			if !ok {
				continue
			}
			c.writes.Add(1)
			pkt, _ := got["packet"].(map[string]any)
			if pkt == nil {
				continue
			}
			c.claims.Add(1)
			args := map[string]any{"packet_id": pkt["id"], "session_id": ses, "lease_id": got["lease_id"]}
			if _, ok := call("work_complete", args); ok {
				c.writes.Add(1)
			}
		}
	}
}

// sse holds one legacy SSE stream open and reads its events until ctx ends.
func sse(ctx context.Context, hc *http.Client, endpoint, token string, c *counts) {
	req, _ := http.NewRequestWithContext(ctx, "GET", strings.TrimSuffix(endpoint, "/mcp")+"/mcp/sse", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: hc.Transport}).Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.fail("sse: %v", err)
		}
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		c.fail("sse: HTTP %d", resp.StatusCode)
		return
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "event:") {
			c.sseEvents.Add(1)
		}
	}
}
