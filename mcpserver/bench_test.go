package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
			req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, e.url, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+e.clientRaw)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("HTTP %d", resp.StatusCode)
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
