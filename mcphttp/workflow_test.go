package mcphttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// agent calls tools over real HTTP with one token, as an MCP client would.
type agent struct {
	t     testing.TB
	url   string
	token string
}

// call runs a tool and returns structuredContent.
func (a *agent) call(tool string, args map[string]any) map[string]any {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest("POST", a.url, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.StructuredContent == nil {
		a.t.Fatalf("%s: %s", tool, b)
	}
	return out.Result.StructuredContent
}

// ok runs a tool that must succeed and returns its result.
func (a *agent) ok(tool string, args map[string]any) map[string]any {
	a.t.Helper()
	sc := a.call(tool, args)
	if sc["ok"] != true {
		a.t.Fatalf("%s: %v: %v", tool, sc["error"], sc["message"])
	}
	res, _ := sc["result"].(map[string]any)
	return res
}

// denied runs a tool that must fail with code.
func (a *agent) denied(tool string, args map[string]any, code store.Code) {
	a.t.Helper()
	if sc := a.call(tool, args); sc["ok"] != false || sc["error"] != string(code) {
		a.t.Fatalf("%s: %v, want %s", tool, sc, code)
	}
}

func workflowEnv(t *testing.T) (*fixture, string, store.Repository) {
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	t.Cleanup(srv.Close)
	return f, srv.URL + "/mcp", repo
}

func (f *fixture) createPacket(t *testing.T, repo string, extra map[string]any) string {
	t.Helper()
	args := map[string]any{"repository_id": repo, "title": "fix it", "instructions": "do the thing"}
	for k, v := range extra {
		args[k] = v
	}
	b, _ := json.Marshal(args)
	res := f.reg.Invoke(t.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "work.create", b)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Value.(mcpserver.PacketResult).Packet.ID
}

// The whole loop, as the spec's canonical agent runs it: ready → await →
// ack → publish → complete → another principal approves.
func TestWorkflowLoop(t *testing.T) {
	f, url, repo := workflowEnv(t)
	_, raw := f.createClientToken(t)
	_, reviewerRaw := f.createToken(t, store.TokenSpec{Label: "reviewer", Grants: []store.Grant{{Capability: store.CapReviewWrite, Repositories: []string{repo.ID}}}})
	a := &agent{t, url, raw}
	reviewer := &agent{t, url, reviewerRaw}

	pkt := f.createPacket(t, repo.ID, map[string]any{"expected_artifacts": []map[string]string{{"name": "report", "kind": "markdown"}}, "review_required": true})
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	got := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 1})
	p := got["packet"].(map[string]any)
	lease := got["lease_id"].(string)
	if p["id"] != pkt || !strings.HasPrefix(lease, "lse_") || got["lease_expires_at"] == nil {
		t.Fatalf("await: %v", got)
	}
	leaseArgs := map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease}
	a.ok("work_ack", leaseArgs)
	a.denied("work_complete", leaseArgs, store.CodeArtifactsMissing)
	a.ok("artifact_publish", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease, "name": "report", "kind": "markdown", "content": "# done"})
	done := a.ok("work_complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease, "summary": "fixed"})
	if done["packet"].(map[string]any)["state"] != "in_review" {
		t.Fatalf("complete: %v", done)
	}
	reviewer.denied("work_get", map[string]any{"packet_id": pkt}, store.CodeCapabilityMissing)
	approved := reviewer.ok("review_verdict", map[string]any{"packet_id": pkt, "verdict": "approve"})
	if approved["packet"].(map[string]any)["state"] != "done" {
		t.Fatalf("verdict: %v", approved)
	}
	// The session's trace is gap-free and tells the story.
	f.view(t, func(tx *store.Tx) error {
		evs, err := tx.TraceEvents(ses, 0, 1000)
		for i, ev := range evs {
			if ev.Seq != uint64(i+1) {
				t.Errorf("trace seq %d at %d", ev.Seq, i)
			}
		}
		if len(evs) < 8 {
			t.Errorf("only %d trace events", len(evs))
		}
		return err
	})
}

// Fencing: after a release and a new claim, the old lease id is lost for
// every call.
func TestWorkflowFencing(t *testing.T) {
	f, url, repo := workflowEnv(t)
	_, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	pkt := f.createPacket(t, repo.ID, nil)
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	first := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses})["lease_id"].(string)
	a.ok("work_release", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": first, "summary": "not mine"})
	second := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses})["lease_id"].(string)
	if second == first {
		t.Fatal("a new claim reused the lease id")
	}
	stale := map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": first}
	for _, tool := range []string{"work_ack", "work_complete", "work_release"} {
		a.denied(tool, stale, store.CodeLeaseLost)
	}
	a.denied("artifact_publish", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": first, "name": "x", "content": "y"}, store.CodeLeaseLost)
}

// A long poll returns as soon as work arrives, and packet null when the
// wait ends empty.
func TestAwaitPacketLongPoll(t *testing.T) {
	f, url, repo := workflowEnv(t)
	_, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)

	begin := time.Now()
	empty := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 1})
	if empty["packet"] != nil || time.Since(begin) < time.Second {
		t.Fatalf("empty wait: %v after %s", empty, time.Since(begin))
	}

	type answer struct {
		res  map[string]any
		took time.Duration
	}
	got := make(chan answer, 1)
	go func() {
		begin := time.Now()
		got <- answer{a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 30}), time.Since(begin)}
	}()
	// Create the packet once the poll is waiting (its first try is audited
	// only when it answers, so wait for the registry's waiter instead).
	waitParked(t, f.reg, mcpserver.QueueKey(repo.ID), "the long poll to wait")
	pkt := f.createPacket(t, repo.ID, nil)
	select {
	case ans := <-got:
		if p, _ := ans.res["packet"].(map[string]any); p == nil || p["id"] != pkt {
			t.Fatalf("woken with %v", ans.res)
		}
		if ans.took > 5*time.Second {
			t.Fatalf("the waiting agent got the packet after %s", ans.took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll was not woken by new work")
	}
}

// A question reaches the human, and the answer reaches the waiting agent.
func TestQuestionAndAnswer(t *testing.T) {
	f, url, repo := workflowEnv(t)
	_, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	q := a.ok("session_report", map[string]any{"kind": "question", "session_id": ses, "text": "which branch?"})["question_id"].(string)
	if !strings.HasPrefix(q, "q_") {
		t.Fatalf("question id %q", q)
	}
	got := make(chan map[string]any, 1)
	go func() { got <- a.ok("session_await_answer", map[string]any{"question_id": q, "wait_seconds": 30}) }()
	waitParked(t, f.reg, mcpserver.QuestionKey(q), "await_answer to wait")
	res := f.reg.Invoke(t.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "session.answer", json.RawMessage(fmt.Sprintf(`{"question_id":%q,"answer":"main"}`, q)))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	select {
	case ans := <-got:
		if ans["answered"] != true || ans["answer"] != "main" {
			t.Fatalf("answer: %v", ans)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer never reached the waiting agent")
	}
}

// A session's end gives its leases back and revokes nothing but its own
// session token.
func TestSessionEndReleasesLeases(t *testing.T) {
	f, url, repo := workflowEnv(t)
	_, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	pkt := f.createPacket(t, repo.ID, nil)
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	lease := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses})["lease_id"].(string)
	res := f.reg.Invoke(t.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "session.end", json.RawMessage(fmt.Sprintf(`{"session_id":%q,"reason":"exit 0"}`, ses)))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := res.Value.(mcpserver.SessionEnded).Released; len(got) != 1 || got[0] != pkt {
		t.Fatalf("released %v", got)
	}
	a.denied("work_ack", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease}, store.CodeInvalidState)
	a.ok("status", nil) // the client token is not the session's: still valid
	f.view(t, func(tx *store.Tx) error {
		p, err := tx.Packet(pkt)
		if p.State != "queued" {
			t.Errorf("packet %s after its session ended", p.State)
		}
		// The exit event is there; the denied ack after the end is last.
		evs, _ := tx.TraceEvents(ses, 0, 1000)
		exited := slices.ContainsFunc(evs, func(ev store.TraceEvent) bool { return ev.Type == store.TraceExit })
		if n := len(evs); !exited || evs[n-1].Type != store.TraceDenial {
			t.Errorf("trace %v: want an exit event, and the denied ack last", evs)
		}
		return err
	})
}
