package team

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/store"
)

// client calls tools over one instance's MCP endpoint with one token, as
// an agent's MCP client does: JSON-RPC tools/call over HTTP POST.
type client struct {
	url, token string
	http       *http.Client
}

func newClient(in *instance) *client {
	return &client{url: in.endpoint, token: in.token, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// answer is what one call was told.
type answer struct {
	status int
	ok     bool
	code   store.Code // the denial or error, "" when ok
	// rpcError says the error came as a JSON-RPC error (the request
	// failed), not as a tool's result.
	rpcError bool
	auditID  string
	result   json.RawMessage
}

// call makes one tools/call. An error is a call with no answer at all
// (errDead: the instance is gone, or ctx ended).
func (c *client) call(ctx context.Context, tool string, args any) (answer, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %w: %w", tool, errDead, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %w: %w", tool, errDead, err)
	}
	var out struct {
		Error *struct {
			Data struct {
				Code    store.Code `json:"code"`
				AuditID string     `json:"audit_id"`
			} `json:"data"`
		} `json:"error"`
		Result struct {
			StructuredContent struct {
				OK      bool            `json:"ok"`
				Error   store.Code      `json:"error"`
				AuditID string          `json:"audit_id"`
				Result  json.RawMessage `json:"result"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return answer{}, fmt.Errorf("%s: HTTP %d, not JSON: %q", tool, resp.StatusCode, b)
	}
	a := answer{status: resp.StatusCode}
	if out.Error != nil {
		a.rpcError, a.code, a.auditID = true, out.Error.Data.Code, out.Error.Data.AuditID
		return a, nil
	}
	sc := out.Result.StructuredContent
	a.ok, a.code, a.auditID, a.result = sc.OK, sc.Error, sc.AuditID, sc.Result
	return a, nil
}

// unavailable reports whether a is the transport's store_unavailable, as
// the issue has it: HTTP 503 and a JSON-RPC error of that code.
func (a answer) unavailable() bool {
	return a.status == http.StatusServiceUnavailable && a.rpcError && a.code == store.CodeStoreUnavailable
}

// ack is a complete an agent was answered ok for.
type ack struct {
	packet, session, lease, auditID, instance string
}

// recorder keeps what the agents were told.
type recorder struct {
	mu sync.Mutex
	// leases maps every lease id an await handed out to its packet.
	leases map[string]string
	// acks are the completes answered ok, by packet.
	acks map[string]ack
	// sessions are the sessions each instance's agents reported ready
	// in, by instance id.
	sessions map[string][]string
	// unavailable counts the store_unavailable answers, maybe the
	// completes that were retried after one and then found the lease
	// gone (the first try may have committed).
	unavailable, maybe int
	// slowest is the longest a store_unavailable answer took: a store
	// that is away must fail calls fast, not hold them.
	slowest  time.Duration
	problems []string
	// acked gets a value for every ok complete, for a test to wait on.
	acked chan ack
	// claimed gets one for every lease handed out (lease, packet,
	// session, instance), while it has room.
	claimed chan ack
}

func newRecorder() *recorder {
	return &recorder{leases: map[string]string{}, acks: map[string]ack{}, sessions: map[string][]string{}, acked: make(chan ack, 1<<16), claimed: make(chan ack, 1<<16)}
}

// answered is how many completes were answered ok.
func (r *recorder) answered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.acks)
}

func (r *recorder) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) < 50 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

func (r *recorder) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.problems {
		t.Error(p)
	}
}

// agentOpts shape an agent's run.
type agentOpts struct {
	repo         string
	leaseSeconds int
	// retryUnavailable has the agent try a store_unavailable call again
	// (after a pause, as a client backs off); without it such an answer
	// is a problem.
	retryUnavailable bool
}

// backoff is a client's pause before it tries a refused call again.
const backoff = 100 * time.Millisecond

// runAgent is one agent on one instance: ready, then await → complete
// until ctx ends or its instance goes away. Every answer is checked as it
// comes: a lease handed out twice, an ok complete of a packet already
// completed, an error that is neither a known refusal nor, when allowed,
// store_unavailable.
func runAgent(ctx context.Context, c *client, instanceID string, o agentOpts, rec *recorder) {
	// A call and its answer, with store_unavailable tried again; retried
	// says it was.
	retried := false
	call := func(tool string, args any) (answer, bool) {
		retried = false
		for {
			sent := time.Now()
			a, err := c.call(ctx, tool, args)
			took := time.Since(sent)
			if err != nil {
				return answer{}, false // the instance died, or the test is over
			}
			if !a.unavailable() {
				if a.status == http.StatusServiceUnavailable || a.code == store.CodeStoreUnavailable {
					rec.problem("%s on %s: store_unavailable not as HTTP 503 with a JSON-RPC error: %+v", tool, instanceID, a)
				}
				return a, true
			}
			rec.mu.Lock()
			rec.unavailable++
			rec.slowest = max(rec.slowest, took)
			rec.mu.Unlock()
			if !o.retryUnavailable {
				rec.problem("%s on %s: store_unavailable with the database up", tool, instanceID)
				return a, true
			}
			retried = true
			select {
			case <-ctx.Done():
				return answer{}, false
			case <-time.After(backoff):
			}
		}
	}
	a, alive := call("session_report", map[string]any{"kind": "ready", "repository_id": o.repo})
	if !alive {
		return
	}
	var ready struct {
		SessionID string `json:"session_id"`
	}
	if !a.ok || json.Unmarshal(a.result, &ready) != nil || ready.SessionID == "" {
		rec.problem("session_report ready on %s: %+v", instanceID, a)
		return
	}
	ses := ready.SessionID
	rec.mu.Lock()
	rec.sessions[instanceID] = append(rec.sessions[instanceID], ses)
	rec.mu.Unlock()
	for ctx.Err() == nil {
		a, alive := call("work_await_packet", map[string]any{"repository_id": o.repo, "session_id": ses, "wait_seconds": 1, "lease_seconds": o.leaseSeconds})
		if !alive {
			return
		}
		var claim struct {
			Packet *struct {
				ID string `json:"id"`
			} `json:"packet"`
			LeaseID string `json:"lease_id"`
		}
		if !a.ok || json.Unmarshal(a.result, &claim) != nil {
			rec.problem("work_await_packet on %s: %+v", instanceID, a)
			return
		}
		if claim.Packet == nil {
			continue
		}
		pkt := claim.Packet.ID
		rec.mu.Lock()
		if was, dup := rec.leases[claim.LeaseID]; dup {
			rec.problems = append(rec.problems, fmt.Sprintf("lease %s handed out twice: for %s and for %s", claim.LeaseID, was, pkt))
		}
		rec.leases[claim.LeaseID] = pkt
		rec.mu.Unlock()
		select {
		case rec.claimed <- ack{packet: pkt, session: ses, lease: claim.LeaseID, instance: instanceID}:
		default: // no test waits for claims here
		}

		args := map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": claim.LeaseID, "summary": "done by " + ses}
		if a, alive = call("work_complete", args); !alive {
			return
		}
		switch {
		case a.ok:
			k := ack{packet: pkt, session: ses, lease: claim.LeaseID, auditID: a.auditID, instance: instanceID}
			rec.mu.Lock()
			if was, dup := rec.acks[pkt]; dup {
				rec.problems = append(rec.problems, fmt.Sprintf("packet %s completed twice: by %s and by %s", pkt, was.session, ses))
			}
			rec.acks[pkt] = k
			rec.mu.Unlock()
			rec.acked <- k
		case retried && (a.code == store.CodeLeaseLost || a.code == store.CodeInvalidState):
			// The first try's commit may have gone through before its
			// answer was lost, or the lease expired while the store
			// was away: the shared state says which.
			rec.mu.Lock()
			rec.maybe++
			rec.mu.Unlock()
		default:
			rec.problem("work_complete of %s on %s: %+v", pkt, instanceID, a)
		}
	}
}

// createPackets creates n packets in repo on in, over its control socket
// as the CLI's `work create` does (work.create is not an agent's tool),
// eight calls at a time, and returns their ids.
func createPackets(t *testing.T, in *instance, repo string, n int) []string {
	t.Helper()
	c := control.NewClient(filepath.Join(in.run, "control.sock"))
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				resp, err := c.Call(t.Context(), "work.create", map[string]any{"repository_id": repo, "title": fmt.Sprintf("packet %d", i), "max_attempts": 100})
				var res struct {
					Packet struct {
						ID string `json:"id"`
					} `json:"packet"`
				}
				if err == nil && (!resp.OK || json.Unmarshal(resp.Result, &res) != nil) {
					err = fmt.Errorf("work.create on %s: %+v", in.name, resp)
				}
				if err != nil {
					errs <- err
					return
				}
				ids[i] = res.Packet.ID
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return ids
}

// checkShared checks the shared state against what the agents were told:
// every packet done, completed exactly once (one transition to done), by
// the session that was answered ok when one was; every ok complete's
// audit record in the log, made on the instance that answered, by that
// session, with outcome ok; the audit chain whole.
func checkShared(t *testing.T, v *view, packets []string, rec *recorder) (auditRecords int) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	v.read(func(tx *store.Tx) error {
		for _, id := range packets {
			p, err := tx.Packet(id)
			if err != nil {
				return err
			}
			dones := 0
			var by string
			for _, h := range p.History {
				if h.To == store.PacketDone {
					dones++
					by = h.SessionID
				}
			}
			if p.State != store.PacketDone || dones != 1 {
				t.Errorf("packet %s is %s after %d completions; want done, once", id, p.State, dones)
				continue
			}
			if k, ok := rec.acks[id]; ok && by != k.session {
				t.Errorf("packet %s was completed by %s, but %s was answered ok", id, by, k.session)
			}
		}
		byID := map[string]store.AuditRecord{}
		var before uint64
		for {
			page, err := tx.QueryAudit(store.AuditFilter{BeforeSeq: before, Limit: 1000, Views: true})
			if err != nil {
				return err
			}
			for _, r := range page {
				byID[r.ID] = r
			}
			if len(page) < 1000 || page[len(page)-1].Seq <= 1 {
				break
			}
			before = page[len(page)-1].Seq
		}
		for _, k := range rec.acks {
			r, ok := byID[k.auditID]
			switch {
			case !ok:
				t.Errorf("the ok complete of %s (audit %s) has no audit record", k.packet, k.auditID)
			case r.Method != "work.complete" || r.Outcome != "ok" || r.SessionID != k.session || r.Instance != k.instance:
				t.Errorf("the ok complete of %s: audit record %+v; want work.complete, ok, by %s on %s", k.packet, r, k.session, k.instance)
			}
		}
		ver, err := tx.VerifyAudit()
		if err != nil {
			return fmt.Errorf("verify the audit chain: %w", err)
		}
		auditRecords = ver.Records
		return nil
	})
	return auditRecords
}
