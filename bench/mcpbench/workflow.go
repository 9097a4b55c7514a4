package main

// The workflow rows: what agents do to the product besides status.
//
//   - drain (claim contention): 8 and 32 agents, each with its own session,
//     drain one repository's queue of 10,000 packets with the canonical
//     loop (work_await_packet → work_ack → artifact_publish inline →
//     work_complete), each call over HTTP and each one a transaction;
//     claims/s and completes/s over the whole drain.
//   - heartbeat: concurrent clients each send session_report heartbeats for
//     their session: an audited mutating call that writes a report, a trace
//     event and an audit record.
//   - heartbeat in process: the same calls from as many goroutines calling
//     the registry directly, as the GUI and the supervisor do: the group
//     commit without HTTP and JSON-RPC, whose CPU on a small machine caps
//     the row above.
//
// Each row's rates are set beside the rate of fsync'd single-Put bbolt
// Updates (the ceiling of committing each call on its own) measured for a
// second just before and just after it, so that the machine's drift over a
// drain's minute weighs on both.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Workflow row kinds.
const (
	wfDrain     = "drain"
	wfHeartbeat = "heartbeat"
	// wfHeartbeatDirect is the heartbeat row through the registry in
	// process.
	wfHeartbeatDirect = "heartbeat-direct"
)

// wfResult is one workflow measurement: its calls as a cell, and for a
// drain its packets, claims and completes, and the time to the last claim
// (the cell's elapsed is the time to the last complete).
type wfResult struct {
	kind              string
	cell              cell
	packets           int
	claims, completes int
	claimTime         time.Duration
	// fsync is the single-Update reference measured around this row.
	fsync cell
}

func (w wfResult) claimRate() float64    { return float64(w.claims) / w.claimTime.Seconds() }
func (w wfResult) completeRate() float64 { return float64(w.completes) / w.cell.elapsed.Seconds() }

// measureWorkflow drains packets with each count of drainAgents, then runs
// the heartbeat with heartbeatConc clients, each on a fresh database in dir.
func measureWorkflow(ctx context.Context, dir string, log *slog.Logger, drainAgents []int, packets, heartbeatConc int, warmup, dur time.Duration) ([]wfResult, error) {
	var out []wfResult
	for _, agents := range drainAgents {
		fmt.Fprintf(os.Stderr, "mcpbench: %d agents draining %d packets…\n", agents, packets)
		d, err := withFsync(dir, func() (wfResult, error) { return measureDrain(ctx, dir, log, agents, packets) })
		if err != nil {
			return nil, fmt.Errorf("workflow drain with %d agents: %w", agents, err)
		}
		out = append(out, d)
	}
	fmt.Fprintf(os.Stderr, "mcpbench: session_report heartbeat at concurrency %d…\n", heartbeatConc)
	h, err := withFsync(dir, func() (wfResult, error) { return measureHeartbeat(ctx, dir, log, heartbeatConc, warmup, dur, false) })
	if err != nil {
		return nil, fmt.Errorf("session_report heartbeat: %w", err)
	}
	fmt.Fprintf(os.Stderr, "mcpbench: session.report heartbeat in process at concurrency %d…\n", heartbeatConc)
	hd, err := withFsync(dir, func() (wfResult, error) { return measureHeartbeat(ctx, dir, log, heartbeatConc, warmup, dur, true) })
	if err != nil {
		return nil, fmt.Errorf("session.report heartbeat in process: %w", err)
	}
	return append(out, h, hd), nil
}

// withFsync runs fn between two seconds of fsync'd single-Put Updates and
// sets the result's fsync reference to the two together.
func withFsync(dir string, fn func() (wfResult, error)) (wfResult, error) {
	before, err := measureFsync(dir, 100*time.Millisecond, time.Second)
	if err != nil {
		return wfResult{}, err
	}
	res, err := fn()
	if err != nil {
		return wfResult{}, err
	}
	after, err := measureFsync(dir, 100*time.Millisecond, time.Second)
	if err != nil {
		return wfResult{}, err
	}
	res.fsync = cell{server: refUpdate, conc: 1, calls: before.calls + after.calls, elapsed: before.elapsed + after.elapsed}
	return res, nil
}

// wfClient makes tool calls whose arguments change from call to call.
type wfClient struct {
	client *http.Client
	t      *target
}

// wfAnswer is a tool call's structuredContent.
type wfAnswer struct {
	OK      bool            `json:"ok"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	AuditID string          `json:"audit_id"`
	Result  json.RawMessage `json:"result"`
}

// call runs tool and decodes its result into v; a denial is an error.
func (c *wfClient) call(ctx context.Context, tool string, args, v any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.t.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Authorization", c.t.auth)
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", tool, err)
	}
	var out struct {
		Result struct {
			StructuredContent *wfAnswer `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.StructuredContent == nil {
		return fmt.Errorf("%s: HTTP %d: %s", tool, resp.StatusCode, excerpt(b, 400))
	}
	a := out.Result.StructuredContent
	if !a.OK {
		return fmt.Errorf("%s: %s: %s", tool, a.Error, a.Message)
	}
	if v != nil {
		return json.Unmarshal(a.Result, v)
	}
	return nil
}

// ready registers a session for one agent.
func (c *wfClient) ready(ctx context.Context, repoID string) (string, error) {
	var r struct {
		SessionID string `json:"session_id"`
	}
	args := map[string]any{"kind": "ready", "repository_id": repoID}
	if err := c.call(ctx, "session_report", args, &r); err != nil {
		return "", err
	}
	return r.SessionID, nil
}

// drainAgent is one agent's record of the drain.
type drainAgent struct {
	lat                     []time.Duration
	claims, completes       int
	lastClaim, lastComplete time.Time
}

// measureDrain queues packets on a fresh database and lets agents drain
// them all: every agent loops until work_await_packet comes back empty.
// The rates are over the drain, from the agents' start to the last claim
// (claims/s) and to the last complete (completes/s, calls/s); the calls
// that found the queue empty are not counted.
func measureDrain(ctx context.Context, dir string, log *slog.Logger, agents, packets int) (wfResult, error) {
	repoDir := filepath.Join(dir, fmt.Sprintf("drain-repo-%d", agents))
	if err := os.MkdirAll(repoDir, 0o700); err != nil {
		return wfResult{}, err
	}
	var repoID string
	t, err := startSwitchboardWith(filepath.Join(dir, fmt.Sprintf("drain-%d.db", agents)), log, func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("drain", repoDir)
		if err != nil {
			return err
		}
		repoID = repo.ID
		return queuePackets(tx, repoID, packets)
	})
	if err != nil {
		return wfResult{}, err
	}
	defer t.close()
	return runDrain(ctx, slices.Repeat([]*target{t}, agents), slices.Repeat([]string{repoID}, agents), packets)
}

// queuePackets queues n packets in repoID, each expecting one report.
func queuePackets(tx *store.Tx, repoID string, n int) error {
	for range n {
		if _, err := tx.CreatePacket(store.PacketSpec{
			RepositoryID: repoID, Title: "bench", Instructions: "publish the report",
			ExpectedArtifacts: []store.ExpectedArtifact{{Name: "report", Kind: "markdown"}},
		}); err != nil {
			return err
		}
	}
	return nil
}

// runDrain is measureDrain's drain of packets already queued: an agent for
// each of targets, with a session there on the repository repoIDs names
// beside it (several targets are instances sharing one database, or each
// on its own), until the packets in all are done.
func runDrain(ctx context.Context, targets []*target, repoIDs []string, packets int) (wfResult, error) {
	agents := len(targets)
	client := newClient(agents)
	defer client.CloseIdleConnections()
	cs := make([]*wfClient, agents)
	sessions := make([]string, agents)
	for i, t := range targets {
		cs[i] = &wfClient{client: client, t: t}
		var err error
		if sessions[i], err = cs[i].ready(ctx, repoIDs[i]); err != nil {
			return wfResult{}, err
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	logs := make([]drainAgent, agents)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, hasCPU := processCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for i, ses := range sessions {
		logs[i].lat = make([]time.Duration, 0, 4*packets/agents+64)
		wg.Go(func() {
			if err := drainLoop(ctx, cs[i], repoIDs[i], ses, &logs[i]); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&after)
	if err := context.Cause(ctx); err != nil {
		return wfResult{}, err
	}
	res := wfResult{kind: wfDrain, packets: packets}
	var all []time.Duration
	var lastClaim, lastComplete time.Time
	for _, l := range logs {
		all = append(all, l.lat...)
		res.claims += l.claims
		res.completes += l.completes
		if l.lastClaim.After(lastClaim) {
			lastClaim = l.lastClaim
		}
		if l.lastComplete.After(lastComplete) {
			lastComplete = l.lastComplete
		}
	}
	if res.completes != packets || res.claims != packets {
		return wfResult{}, fmt.Errorf("%d agents drained %d packets: %d claims, %d completes", agents, packets, res.claims, res.completes)
	}
	slices.Sort(all)
	res.claimTime = lastClaim.Sub(start)
	res.cell = cell{
		server: "switchboard", conc: agents, calls: len(all), elapsed: lastComplete.Sub(start),
		p50: percentile(all, 0.50), p99: percentile(all, 0.99),
		mallocs: after.Mallocs - before.Mallocs, bytes: after.TotalAlloc - before.TotalAlloc,
		cpu: cpu1 - cpu0, hasCPU: hasCPU,
	}
	return res, nil
}

// drainLoop is one agent: await → ack → publish → complete until the
// queue is empty.
func drainLoop(ctx context.Context, c *wfClient, repoID, ses string, log *drainAgent) error {
	// step runs one call and records its latency.
	step := func(tool string, args, v any) (time.Time, error) {
		t0 := time.Now()
		if err := c.call(ctx, tool, args, v); err != nil {
			return t0, err
		}
		t1 := time.Now()
		log.lat = append(log.lat, t1.Sub(t0))
		return t1, nil
	}
	for ctx.Err() == nil {
		var got struct {
			Packet *struct {
				ID                string                   `json:"id"`
				ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts"`
			} `json:"packet"`
			LeaseID string `json:"lease_id"`
		}
		// Nothing releases a packet here, so an empty answer means the
		// queue is drained; it comes after a second's wait and is not
		// counted.
		t0 := time.Now()
		if err := c.call(ctx, "work_await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": 1}, &got); err != nil {
			return err
		}
		if got.Packet == nil {
			return nil
		}
		log.lastClaim = time.Now()
		log.lat = append(log.lat, log.lastClaim.Sub(t0))
		log.claims++
		lease := map[string]any{"packet_id": got.Packet.ID, "session_id": ses, "lease_id": got.LeaseID}
		if _, err := step("work_ack", lease, nil); err != nil {
			return err
		}
		for _, e := range got.Packet.ExpectedArtifacts {
			if _, err := step("artifact_publish", map[string]any{
				"packet_id": got.Packet.ID, "session_id": ses, "lease_id": got.LeaseID,
				"name": e.Name, "kind": e.Kind, "content": "# report\n\nDone.\n",
			}, nil); err != nil {
				return err
			}
		}
		done, err := step("work_complete", map[string]any{"packet_id": got.Packet.ID, "session_id": ses, "lease_id": got.LeaseID, "summary": "done"}, nil)
		if err != nil {
			return err
		}
		log.completes++
		log.lastComplete = done
	}
	return context.Cause(ctx)
}

// measureHeartbeat loads a fresh database with conc clients, each sending
// session_report heartbeats for a session of its own: over HTTP, or with
// direct set, as calls of the registry in this process.
func measureHeartbeat(ctx context.Context, dir string, log *slog.Logger, conc int, warmup, dur time.Duration, direct bool) (wfResult, error) {
	name := "heartbeat.db"
	if direct {
		name = "heartbeat-direct.db"
	}
	// Every session works in a repository (its calls are checked there).
	var repoID string
	t, err := startSwitchboardWith(filepath.Join(dir, name), log, func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("heartbeat", dir)
		repoID = repo.ID
		return err
	})
	if err != nil {
		return wfResult{}, err
	}
	defer t.close()
	c, err := measureWith(ctx, t, conc, warmup, dur, func(client *http.Client, id int) (*worker, error) {
		return heartbeatWorker(ctx, client, t, repoID, id, direct)
	})
	if err != nil {
		return wfResult{}, err
	}
	kind := wfHeartbeat
	if direct {
		kind = wfHeartbeatDirect
	}
	return wfResult{kind: kind, cell: c}, nil
}

// heartbeatWorker readies a session on t and returns the worker that sends
// its heartbeats: over HTTP, or with direct set, through t's registry.
func heartbeatWorker(ctx context.Context, client *http.Client, t *target, repoID string, id int, direct bool) (*worker, error) {
	ses, err := (&wfClient{client: client, t: t}).ready(ctx, repoID)
	if err != nil {
		return nil, err
	}
	args := json.RawMessage(fmt.Sprintf(`{"kind":"heartbeat","session_id":%q,"text":"working"}`, ses))
	w := newWorker(client, t, id)
	w.body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"session_report","arguments":%s}}`, id, args)
	if direct {
		w.direct = func(ctx context.Context) error {
			return t.reg.Invoke(ctx, t.principal, mcpserver.TransportMCP, "session.report", args).Err
		}
	}
	return w, nil
}
