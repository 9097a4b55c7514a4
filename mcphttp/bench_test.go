package mcphttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/internal/benchrun"
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
	benchrun.Callers(b, clients, func(i int) error {
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
