package main

// The workflow rows: what agents do to the product besides status.
//
//   - drain: agents, each with its own session, take packets off one
//     repository's queue with the canonical loop (work_await_packet →
//     work_ack → artifact_publish inline → work_complete), each call over
//     HTTP and each one a transaction; claims/s and completes/s.
//   - heartbeat: concurrent clients each send session_report heartbeats for
//     their session: an audited mutating call that writes a report, a trace
//     event and an audit record. Its rate is set beside the fsync'd
//     single-Update rate of the same run, the ceiling of committing each
//     call on its own.

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

	"github.com/switchboard-dev/switchboard/store"
)

// Workflow row kinds.
const (
	wfDrain     = "drain"
	wfHeartbeat = "heartbeat"
)

// drainPacketsPerSecond sizes the drain's queue: more packets per second of
// run than the agents can take, so it never runs dry (it fails if it does).
const drainPacketsPerSecond = 3000

// wfResult is one workflow measurement: its calls as a cell, and for the
// drain the claims and completes answered within the window.
type wfResult struct {
	kind              string
	cell              cell
	claims, completes int
}

func (w wfResult) claimRate() float64    { return float64(w.claims) / w.cell.elapsed.Seconds() }
func (w wfResult) completeRate() float64 { return float64(w.completes) / w.cell.elapsed.Seconds() }

// measureWorkflow runs the drain with drainAgents agents and the heartbeat
// with heartbeatConc clients, each on a fresh database in dir.
func measureWorkflow(ctx context.Context, dir string, log *slog.Logger, drainAgents, heartbeatConc int, warmup, dur time.Duration) ([]wfResult, error) {
	fmt.Fprintf(os.Stderr, "mcpbench: workflow drain with %d agents…\n", drainAgents)
	d, err := measureDrain(ctx, dir, log, drainAgents, warmup, dur)
	if err != nil {
		return nil, fmt.Errorf("workflow drain: %w", err)
	}
	fmt.Fprintf(os.Stderr, "mcpbench: session_report heartbeat at concurrency %d…\n", heartbeatConc)
	h, err := measureHeartbeat(ctx, dir, log, heartbeatConc, warmup, dur)
	if err != nil {
		return nil, fmt.Errorf("session_report heartbeat: %w", err)
	}
	return []wfResult{d, h}, nil
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
	args := map[string]any{"kind": "ready"}
	if repoID != "" {
		args["repository_id"] = repoID
	}
	if err := c.call(ctx, "session_report", args, &r); err != nil {
		return "", err
	}
	return r.SessionID, nil
}

// drainAgent is one agent's record of the drain: the calls answered inside
// the window and what they did.
type drainAgent struct {
	lat               []time.Duration
	claims, completes int
}

// measureDrain queues packets on a fresh database and lets agents drain
// them for warmup+dur; the window is the last dur.
func measureDrain(ctx context.Context, dir string, log *slog.Logger, agents int, warmup, dur time.Duration) (wfResult, error) {
	repoDir := filepath.Join(dir, "drain-repo")
	if err := os.MkdirAll(repoDir, 0o700); err != nil {
		return wfResult{}, err
	}
	packets := 2000 + int(drainPacketsPerSecond*(warmup+dur).Seconds())
	var repoID string
	t, err := startSwitchboardWith(filepath.Join(dir, "drain.db"), log, func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("drain", repoDir)
		if err != nil {
			return err
		}
		repoID = repo.ID
		for range packets {
			if _, err := tx.CreatePacket(store.PacketSpec{
				RepositoryID: repoID, Title: "bench", Instructions: "publish the report",
				ExpectedArtifacts: []store.ExpectedArtifact{{Name: "report", Kind: "markdown"}},
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wfResult{}, err
	}
	defer t.close()
	client := newClient(agents)
	defer client.CloseIdleConnections()
	c := &wfClient{client: client, t: t}
	sessions := make([]string, agents)
	for i := range sessions {
		if sessions[i], err = c.ready(ctx, repoID); err != nil {
			return wfResult{}, err
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	winStart, end := start.Add(warmup), start.Add(warmup+dur)
	logs := make([]drainAgent, agents)
	var wg sync.WaitGroup
	for i, ses := range sessions {
		logs[i].lat = make([]time.Duration, 0, 1<<14)
		wg.Go(func() {
			if err := drainLoop(ctx, c, repoID, ses, winStart, end, &logs[i]); err != nil {
				cancel(err)
			}
		})
	}
	time.Sleep(time.Until(winStart))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, hasCPU := processCPU()
	time.Sleep(time.Until(end))
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&after)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return wfResult{}, err
	}
	res := wfResult{kind: wfDrain}
	var all []time.Duration
	for _, l := range logs {
		all = append(all, l.lat...)
		res.claims += l.claims
		res.completes += l.completes
	}
	if len(all) == 0 {
		return wfResult{}, fmt.Errorf("no call answered in %v", dur)
	}
	slices.Sort(all)
	res.cell = cell{
		server: "switchboard", conc: agents, calls: len(all), elapsed: dur,
		p50: percentile(all, 0.50), p99: percentile(all, 0.99),
		mallocs: after.Mallocs - before.Mallocs, bytes: after.TotalAlloc - before.TotalAlloc,
		cpu: cpu1 - cpu0, hasCPU: hasCPU,
	}
	return res, nil
}

// drainLoop is one agent: await → ack → publish → complete until end,
// counting what was answered between winStart and end.
func drainLoop(ctx context.Context, c *wfClient, repoID, ses string, winStart, end time.Time, log *drainAgent) error {
	// step runs one call and counts it when it was answered in the window.
	step := func(tool string, args, v any) (bool, error) {
		t0 := time.Now()
		if err := c.call(ctx, tool, args, v); err != nil {
			return false, err
		}
		t1 := time.Now()
		in := !t1.Before(winStart) && !t1.After(end)
		if in {
			log.lat = append(log.lat, t1.Sub(t0))
		}
		return in, nil
	}
	for ctx.Err() == nil && time.Now().Before(end) {
		var got struct {
			Packet *struct {
				ID                string                   `json:"id"`
				ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts"`
			} `json:"packet"`
			LeaseID string `json:"lease_id"`
		}
		in, err := step("work_await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": 1}, &got)
		if err != nil {
			return err
		}
		if got.Packet == nil {
			return fmt.Errorf("the queue ran dry: raise drainPacketsPerSecond")
		}
		if in {
			log.claims++
		}
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
		in, err = step("work_complete", map[string]any{"packet_id": got.Packet.ID, "session_id": ses, "lease_id": got.LeaseID, "summary": "done"}, nil)
		if err != nil {
			return err
		}
		if in {
			log.completes++
		}
	}
	return nil
}

// measureHeartbeat loads a fresh database with conc clients, each sending
// session_report heartbeats for a session of its own.
func measureHeartbeat(ctx context.Context, dir string, log *slog.Logger, conc int, warmup, dur time.Duration) (wfResult, error) {
	t, err := startSwitchboard(filepath.Join(dir, "heartbeat.db"), log)
	if err != nil {
		return wfResult{}, err
	}
	defer t.close()
	c, err := measureWith(ctx, t, conc, warmup, dur, func(client *http.Client, id int) (*worker, error) {
		ses, err := (&wfClient{client: client, t: t}).ready(ctx, "")
		if err != nil {
			return nil, err
		}
		w := newWorker(client, t, id)
		w.body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"session_report","arguments":{"kind":"heartbeat","session_id":%q,"text":"working"}}}`, id, ses)
		return w, nil
	})
	if err != nil {
		return wfResult{}, err
	}
	return wfResult{kind: wfHeartbeat, cell: c}, nil
}
