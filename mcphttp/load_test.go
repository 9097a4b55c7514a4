package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// ldClient calls tools over real HTTP like the agent helper, but from any
// goroutine: it returns errors instead of failing the test, so agents can run
// concurrently and the test goroutine decides.
type ldClient struct {
	url   string
	token string
	hc    *http.Client
}

// ldAnswer is a tool call's structuredContent.
type ldAnswer struct {
	OK      bool            `json:"ok"`
	Method  string          `json:"method"`
	AuditID string          `json:"audit_id"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Result  json.RawMessage `json:"result"`
}

func newLdClient(url, token string, conns int) *ldClient {
	tr := &http.Transport{Proxy: nil, MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
	return &ldClient{url: url, token: token, hc: &http.Client{Transport: tr, Timeout: 90 * time.Second}}
}

func (c *ldClient) close() { c.hc.CloseIdleConnections() }

// call runs a tool and decodes structuredContent; a transport failure or an
// answer without structuredContent is an error, a denial is not.
func (c *ldClient) call(ctx context.Context, tool string, args any) (ldAnswer, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return ldAnswer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return ldAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := c.hc.Do(req)
	if err != nil {
		return ldAnswer{}, fmt.Errorf("%s: %w", tool, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return ldAnswer{}, fmt.Errorf("%s: reading the answer: %w", tool, err)
	}
	var out struct {
		Result struct {
			StructuredContent *ldAnswer `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.StructuredContent == nil {
		return ldAnswer{}, fmt.Errorf("%s: HTTP %d: %s", tool, resp.StatusCode, b)
	}
	return *out.Result.StructuredContent, nil
}

// ok runs a tool that must succeed and decodes its result into v (if not nil).
func (c *ldClient) ok(ctx context.Context, tool string, args, v any) (ldAnswer, error) {
	a, err := c.call(ctx, tool, args)
	if err != nil {
		return a, err
	}
	if !a.OK {
		return a, fmt.Errorf("%s: %s: %s", tool, a.Error, a.Message)
	}
	if !strings.HasPrefix(a.AuditID, "aud_") {
		return a, fmt.Errorf("%s: acknowledged without an audit id: %+v", tool, a)
	}
	if v != nil {
		if err := json.Unmarshal(a.Result, v); err != nil {
			return a, fmt.Errorf("%s: result %s: %w", tool, a.Result, err)
		}
	}
	return a, nil
}

// ldClaim is what the load agents read of work_await_packet's result.
type ldClaim struct {
	Packet *struct {
		ID                string                   `json:"id"`
		ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts"`
		Attempt           int                      `json:"attempt"`
	} `json:"packet"`
	LeaseID        string     `json:"lease_id"`
	LeaseExpiresAt *time.Time `json:"lease_expires_at"`
}

// ldSeen is what the agents of one run saw acknowledged.
type ldSeen struct {
	mu        sync.Mutex
	leases    map[string]string // lease id -> packet it was handed out for
	dupLeases []string
	completes map[string]int // packet id -> acknowledged completes
	claims    int
	auditIDs  []string // of every acknowledged call
	sessions  []string
}

func newLdSeen() *ldSeen {
	return &ldSeen{leases: map[string]string{}, completes: map[string]int{}}
}

func (s *ldSeen) claimed(lease, pkt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claims++
	if prev, dup := s.leases[lease]; dup {
		s.dupLeases = append(s.dupLeases, fmt.Sprintf("%s (packets %s and %s)", lease, prev, pkt))
	}
	s.leases[lease] = pkt
}

func (s *ldSeen) completed(pkt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.completes[pkt]++
}

// ldDrain is one agent's canonical loop: ready, then await → ack → publish
// every expected artifact inline → complete, until await returns packet
// null twice in a row.
func ldDrain(ctx context.Context, c *ldClient, repoID string, seen *ldSeen) error {
	var acked []string
	ok := func(tool string, args, v any) error {
		a, err := c.ok(ctx, tool, args, v)
		if err == nil {
			acked = append(acked, a.AuditID)
		}
		return err
	}
	defer func() {
		seen.mu.Lock()
		seen.auditIDs = append(seen.auditIDs, acked...)
		seen.mu.Unlock()
	}()
	var ready mcpserver.ReportResult
	if err := ok("session_report", map[string]any{"kind": "ready", "repository_id": repoID, "text": "load agent"}, &ready); err != nil {
		return err
	}
	ses := ready.SessionID
	seen.mu.Lock()
	seen.sessions = append(seen.sessions, ses)
	seen.mu.Unlock()
	empty := 0
	for empty < 2 {
		var got ldClaim
		if err := ok("work_await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": 1}, &got); err != nil {
			return err
		}
		if got.Packet == nil {
			empty++
			continue
		}
		empty = 0
		pkt := got.Packet.ID
		if !strings.HasPrefix(got.LeaseID, "lse_") || got.LeaseExpiresAt == nil {
			return fmt.Errorf("claim of %s without a lease: %+v", pkt, got)
		}
		seen.claimed(got.LeaseID, pkt)
		lease := map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": got.LeaseID}
		if err := ok("work_ack", lease, nil); err != nil {
			return err
		}
		for _, e := range got.Packet.ExpectedArtifacts {
			if err := ok("artifact_publish", map[string]any{
				"packet_id": pkt, "session_id": ses, "lease_id": got.LeaseID,
				"name": e.Name, "kind": e.Kind, "content": "# " + pkt + "\n\ndone by " + ses + "\n",
			}, nil); err != nil {
				return err
			}
		}
		var done mcpserver.PacketResult
		if err := ok("work_complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": got.LeaseID, "summary": "done"}, &done); err != nil {
			return err
		}
		if done.Packet.State != store.PacketDone {
			return fmt.Errorf("complete of %s left it %s", pkt, done.Packet.State)
		}
		seen.completed(pkt)
	}
	return nil
}

// TestEightAgentsDrainPackets drains a queue of 5,000 packets (500 with
// -short, 1,000 under the race detector) with eight agents, each with its
// own session, over real loopback HTTP on a real (fsync'd) store, and checks
// that every packet was done exactly once under leases never handed out
// twice, that every acknowledged call has its audit record in a verifying
// chain, and that every session's trace is gap-free.
func TestEightAgentsDrainPackets(t *testing.T) {
	packets := 5000
	if testing.Short() || ldRaceEnabled() {
		// -short is make test's PostgreSQL run of the suite. The race
		// detector makes each call about five times dearer (1,000
		// packets: 60-100 s of make test's race run on 2 cores); it
		// looks for races, which eight agents claiming and completing
		// 500 packets show as well as 5,000: every agent goes through
		// every step dozens of times against seven others.
		packets = 500
	}
	const agents = 8
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	t.Cleanup(srv.Close)
	_, raw := f.createClientToken(t)

	// Packets go in through the registry, as the operator, one call each:
	// the way the GUI and the CLI create them.
	begin := time.Now()
	spec := mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "load", Instructions: "publish the report",
		ExpectedArtifacts: []store.ExpectedArtifact{{Name: "report", Kind: "markdown"}}}
	args, _ := json.Marshal(spec)
	for i := range packets {
		if res := f.reg.Invoke(t.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "work.create", args); res.Err != nil {
			t.Fatalf("work.create %d: %v", i, res.Err)
		}
	}
	created := time.Since(begin)

	c := newLdClient(srv.URL+"/mcp", raw, agents)
	defer c.close()
	seen := newLdSeen()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	errs := make(chan error, agents)
	begin = time.Now()
	var wg sync.WaitGroup
	for range agents {
		wg.Go(func() { errs <- ldDrain(ctx, c, repo.ID, seen) })
	}
	wg.Wait()
	drained := time.Since(begin)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every packet done exactly once, as the agents saw it.
	if len(seen.completes) != packets {
		t.Errorf("%d packets completed, want %d", len(seen.completes), packets)
	}
	for pkt, n := range seen.completes {
		if n != 1 {
			t.Errorf("packet %s completed %d times", pkt, n)
		}
	}
	if len(seen.dupLeases) > 0 {
		t.Errorf("lease ids handed out twice: %v", seen.dupLeases)
	}
	if seen.claims != packets {
		t.Errorf("%d claims for %d packets (no lease may expire here)", seen.claims, packets)
	}
	f.view(t, func(tx *store.Tx) error {
		if _, err := tx.VerifyAudit(); err != nil {
			t.Errorf("VerifyAudit: %v", err)
		}
		// Every record, newest first, a page at a time.
		audited := map[string]bool{}
		for before := uint64(0); ; {
			recs, err := tx.QueryAudit(store.AuditFilter{BeforeSeq: before, Limit: 1000})
			if err != nil || len(recs) == 0 {
				if err != nil {
					t.Errorf("QueryAudit: %v", err)
				}
				break
			}
			for _, r := range recs {
				audited[r.ID], before = true, r.Seq
			}
		}
		for _, id := range seen.auditIDs {
			if !audited[id] {
				t.Errorf("acknowledged call %s has no audit record", id)
			}
		}
		if n := tx.PacketCounts()[store.PacketDone]; n != packets {
			t.Errorf("PacketCounts()[done] = %d, want %d (counts %v)", n, packets, tx.PacketCounts())
		}
		for _, ses := range seen.sessions {
			ldCheckTrace(t, tx, ses)
		}
		return nil
	})
	t.Logf("%d packets: created through the registry in %s (%.0f/s); drained by %d agents in %s: %d calls, %.0f claims/s, %.0f calls/s",
		packets, created.Round(time.Millisecond), float64(packets)/created.Seconds(), agents, drained.Round(time.Millisecond),
		len(seen.auditIDs), float64(seen.claims)/drained.Seconds(), float64(len(seen.auditIDs))/drained.Seconds())
}

// ldRaceEnabled reports whether this test binary was built with -race.
func ldRaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// ldCheckTrace fails the test unless the session's trace runs 1..N without a
// gap, N being the trace's sequence.
func ldCheckTrace(t *testing.T, tx *store.Tx, ses string) {
	t.Helper()
	last := tx.LastTraceSeq(ses)
	var n uint64
	for {
		evs, err := tx.TraceEvents(ses, n, 1000)
		if err != nil {
			t.Errorf("trace of %s: %v", ses, err)
			return
		}
		if len(evs) == 0 {
			break
		}
		for _, ev := range evs {
			if n++; ev.Seq != n {
				t.Errorf("trace of %s: seq %d where %d belongs", ses, ev.Seq, n)
				return
			}
		}
	}
	if n != last || n == 0 {
		t.Errorf("trace of %s: %d events, sequence at %d", ses, n, last)
	}
}

// TestPausedAgentLosesLease: an agent that claims with a one-second lease
// and then pauses past its expiry loses the packet to another agent once
// the registry's work.expire_leases has run, and every call it makes with
// its old lease fails lease_lost. The daemon's expiry timer is tested
// elsewhere; here the operator runs the sweep as the timer does.
func TestPausedAgentLosesLease(t *testing.T) {
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	t.Cleanup(srv.Close)
	_, raw := f.createClientToken(t)
	ctx := t.Context()
	c := newLdClient(srv.URL+"/mcp", raw, 4)
	defer c.close()
	must := func(a ldAnswer, err error) ldAnswer {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	lost := func(tool string, args map[string]any) {
		t.Helper()
		a, err := c.call(ctx, tool, args)
		if err != nil {
			t.Fatal(err)
		}
		if a.OK || a.Error != string(store.CodeLeaseLost) || !strings.HasPrefix(a.AuditID, "aud_") {
			t.Errorf("%s with the paused agent's old lease: %+v, want lease_lost with an audit id", tool, a)
		}
	}

	pkt := f.createPacket(t, repo.ID, map[string]any{"expected_artifacts": []map[string]string{{"name": "report"}}})
	var paused, other mcpserver.ReportResult
	must(c.ok(ctx, "session_report", map[string]any{"kind": "ready", "repository_id": repo.ID}, &paused))
	must(c.ok(ctx, "session_report", map[string]any{"kind": "ready", "repository_id": repo.ID}, &other))

	var first ldClaim
	must(c.ok(ctx, "work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": paused.SessionID, "lease_seconds": 1, "wait_seconds": 1}, &first))
	if first.Packet == nil || first.Packet.ID != pkt || first.LeaseExpiresAt == nil || first.LeaseExpiresAt.Sub(f.clock.Now()) != time.Second {
		t.Fatalf("first claim: %+v", first)
	}
	old := map[string]any{"packet_id": pkt, "session_id": paused.SessionID, "lease_id": first.LeaseID}
	publish := map[string]any{"packet_id": pkt, "session_id": paused.SessionID, "lease_id": first.LeaseID, "name": "report", "content": "late"}

	// The agent pauses: the lease runs out without an ack. Until the sweep
	// the packet is neither the paused agent's nor anyone else's.
	f.clock.Add(1500 * time.Millisecond)
	lost("work_ack", old)
	var none ldClaim
	must(c.ok(ctx, "work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": other.SessionID, "wait_seconds": -1}, &none))
	if none.Packet != nil {
		t.Fatalf("an expired, unswept lease was claimed again: %+v", none)
	}

	// The other agent waits; the sweep wakes it with the packet.
	claimed := make(chan ldClaim, 1)
	failed := make(chan error, 1)
	go func() {
		var got ldClaim
		if _, err := c.ok(ctx, "work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": other.SessionID, "wait_seconds": 30}, &got); err != nil {
			failed <- err
			return
		}
		claimed <- got
	}()
	waitParked(t, f.reg, mcpserver.QueueKey(repo.ID), "the other agent's await to wait")
	res := f.reg.Invoke(ctx, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, "work.expire_leases", nil)
	wantCode(t, res, "ok")
	if got := res.Value.(mcpserver.ExpiredLeases).Packets; len(got) != 1 || got[0] != pkt {
		t.Fatalf("work.expire_leases returned %v, want [%s]", got, pkt)
	}
	var second ldClaim
	select {
	case second = <-claimed:
	case err := <-failed:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("the sweep did not wake the waiting agent")
	}
	if second.Packet == nil || second.Packet.ID != pkt || second.Packet.Attempt != 2 || second.LeaseID == first.LeaseID {
		t.Fatalf("second claim: %+v (first lease %s)", second, first.LeaseID)
	}

	// Every call of the paused agent with its old lease is refused.
	lost("work_ack", old)
	lost("artifact_publish", publish)
	lost("work_complete", old)
	lost("work_release", old)

	// The new holder finishes; the paused agent's late publish changed
	// nothing.
	mine := map[string]any{"packet_id": pkt, "session_id": other.SessionID, "lease_id": second.LeaseID}
	must(c.ok(ctx, "work_ack", mine, nil))
	must(c.ok(ctx, "artifact_publish", map[string]any{"packet_id": pkt, "session_id": other.SessionID, "lease_id": second.LeaseID, "name": "report", "content": "on time"}, nil))
	var done mcpserver.PacketResult
	must(c.ok(ctx, "work_complete", mine, &done))
	if done.Packet.State != store.PacketDone {
		t.Fatalf("complete: %+v", done.Packet)
	}
	lost("work_complete", old)
	f.view(t, func(tx *store.Tx) error {
		arts, err := tx.Artifacts(pkt)
		if err != nil {
			return err
		}
		if len(arts) != 1 || arts[0].Content == nil || *arts[0].Content != "on time" || arts[0].SessionID != other.SessionID {
			t.Errorf("artifacts: %+v", arts)
		}
		if _, err := tx.VerifyAudit(); err != nil {
			t.Errorf("VerifyAudit: %v", err)
		}
		// The paused agent's trace shows its refusals, gap-free.
		ldCheckTrace(t, tx, paused.SessionID)
		evs, err := tx.TraceEvents(paused.SessionID, 0, 1000)
		denials := 0
		for _, ev := range evs {
			if ev.Type == store.TraceDenial {
				denials++
			}
		}
		if denials != 6 {
			t.Errorf("paused agent's trace has %d denials, want 6: %+v", denials, evs)
		}
		return err
	})
}

// TestExpiredLeaseIsTraced: SPEC §5 lists lease_expired among a session's
// trace events. When work.expire_leases takes a lease back, the session
// that held it must find on its timeline why its next calls fail
// lease_lost.
func TestExpiredLeaseIsTraced(t *testing.T) {
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	t.Cleanup(srv.Close)
	_, raw := f.createClientToken(t)
	ctx := t.Context()
	c := newLdClient(srv.URL+"/mcp", raw, 1)
	defer c.close()
	pkt := f.createPacket(t, repo.ID, nil)
	var ready mcpserver.ReportResult
	if _, err := c.ok(ctx, "session_report", map[string]any{"kind": "ready", "repository_id": repo.ID}, &ready); err != nil {
		t.Fatal(err)
	}
	var got ldClaim
	if _, err := c.ok(ctx, "work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ready.SessionID, "lease_seconds": 1, "wait_seconds": 1}, &got); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(2 * time.Second)
	wantCode(t, f.reg.Invoke(ctx, mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, "work.expire_leases", nil), "ok")
	f.view(t, func(tx *store.Tx) error {
		evs, err := tx.TraceEvents(ready.SessionID, 0, 1000)
		for _, ev := range evs {
			if ev.Type == store.TraceLeaseExpired && ev.PacketID == pkt {
				return err
			}
		}
		var types []string
		for _, ev := range evs {
			types = append(types, string(ev.Type)+" "+ev.Method)
		}
		t.Errorf("session %s lost its lease on %s to expiry, but its trace has no lease_expired event: %q", ready.SessionID, pkt, types)
		return err
	})
}
