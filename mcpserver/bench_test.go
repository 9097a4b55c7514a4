package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/store"
)

// One tools/call of status over loopback HTTP: front layer (Host, Origin,
// token), SDK, registry (re-check, touch, handler) and the audit record,
// one fsync'd commit per call. "sdk" is a go-sdk client session; "json"
// is one keep-alive HTTP client posting a prepared body, so its allocations
// are mostly the server's.
func BenchmarkToolsCallStatus(b *testing.B) {
	e := newHTTPEnv(b)
	b.Run("sdk", func(b *testing.B) {
		cs := e.connect(b, e.clientRaw)
		params := &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(b.Context(), params)
			if err != nil || res.IsError {
				b.Fatalf("status: %v, %v", res, err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
		client := e.srv.Client()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := postJSON(b, client, e.url, e.clientRaw, body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The registry alone: a token principal's status call with its audit
// record, one commit per call.
func BenchmarkRegistryInvokeStatus(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	b.ReportAllocs()
	for b.Loop() {
		if res := f.reg.Invoke(b.Context(), p, TransportMCP, "status", nil); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// Audited mutating calls from 16 concurrent callers of the registry itself,
// as the GUI, the CLI and the supervisor call it: session.report
// heartbeats, each caller its own session, committed in groups. The same
// calls as BenchmarkToolsCallHeartbeat without HTTP and JSON-RPC, so what
// is left is the group commit.
func BenchmarkRegistryInvokeHeartbeat(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	repo := f.registerRepo(b, b.TempDir())
	const callers = 16
	var args []json.RawMessage
	for range callers {
		res := f.reg.Invoke(b.Context(), p, TransportMCP, "session.report", json.RawMessage(fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID)))
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		args = append(args, fmt.Appendf(nil, `{"kind":"heartbeat","session_id":%q,"text":"working"}`, res.Value.(ReportResult).SessionID))
	}
	runCallers(b, callers, func(i int) error {
		return f.reg.Invoke(b.Context(), p, TransportMCP, "session.report", args[i]).Err
	})
}

// runCallers runs call from about n goroutines at once, the i-th calling
// with i, and reports the CPU this process used per call. RunParallel
// starts GOMAXPROCS × parallelism goroutines: n on 2 CPUs, a few more
// elsewhere, which then share an i.
func runCallers(b *testing.B, n int, call func(i int) error) {
	b.SetParallelism((n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	defer func() { b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op") }()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)-1) % n
		for pb.Next() {
			if err := call(i); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// Audited mutating calls from 16 concurrent clients over loopback HTTP:
// session_report heartbeats, each its own session, so every call is a
// report, a session update, a trace event and an audit record, committed
// in groups. Compare with the store's BenchmarkHeartbeatBatch and the
// fsync rate of one Update per call.
func BenchmarkToolsCallHeartbeat(b *testing.B) {
	e := newHTTPEnv(b)
	repo := e.registerRepo(b, b.TempDir())
	a := &agent{b, e.url, e.clientRaw}
	const clients = 16
	var bodies [][]byte
	for i := range clients {
		ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
		bodies = append(bodies, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"session_report","arguments":{"kind":"heartbeat","session_id":%q,"text":"working"}}}`, i, ses))
	}
	client := e.srv.Client()
	runCallers(b, clients, func(i int) error {
		out, err := postJSON(b, client, e.url, e.clientRaw, bodies[i])
		if err == nil && bytes.Contains(out, []byte(`"isError":true`)) {
			err = fmt.Errorf("tool error: %s", out)
		}
		return err
	})
}

// postJSON posts one JSON-RPC body with a bearer token, as a Streamable HTTP
// client does, and returns the answer of an HTTP 200.
func postJSON(b *testing.B, client *http.Client, url, token string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(b.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return out, err
}

// What resolving a call's object costs: work.get of one packet, read-only
// (no commit but the audit record's), by a token whose grant is checked on
// the packet's repository, beside the operator, whose calls are not
// authorized at all (the baseline of the same run).
func BenchmarkRegistryInvokePacketObject(b *testing.B) {
	f := newFixture(b)
	repo := f.registerRepo(b, "/src/app")
	tok, _ := f.createToken(b, store.TokenSpec{Label: "scoped", Kind: store.KindSession, Grants: []store.Grant{
		{Capability: store.CapWorkRead, Repositories: []string{repo.ID}},
	}})
	res := f.invoke(OperatorPrincipal(), TransportGUI, "work.create", fmt.Sprintf(`{"repository_id":%q,"title":"t"}`, repo.ID))
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	args := json.RawMessage(fmt.Sprintf(`{"packet_id":%q}`, res.Value.(PacketResult).Packet.ID))
	for _, c := range []struct {
		name string
		p    Principal
	}{{"operator", OperatorPrincipal()}, {"scoped-token", TokenPrincipal(tok)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := f.reg.Invoke(b.Context(), c.p, TransportMCP, "work.get", args); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
