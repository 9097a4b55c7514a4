package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// A client that goes away mid-call cancels the method's context, whatever
// protocol era it speaks: a long poll must not outlive its caller.
func TestClientGoneCancelsCall(t *testing.T) {
	f := newFixture(t)
	_, raw := f.createClientToken(t)
	started, cancelled := make(chan struct{}), make(chan struct{})
	f.reg.Register(mcpserver.Define("test.wait", mcpserver.On(mcpserver.Global, store.CapStatusRead), mcpserver.ReadOnly, "waits for its context",
		func(c *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.NoArgs, error) {
			close(started)
			select {
			case <-c.Ctx.Done():
				close(cancelled)
			case <-time.After(10 * time.Second):
			}
			return mcpserver.NoArgs{}, nil
		}))
	srv := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(t.Context())
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_wait","arguments":{}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+raw)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the method kept running after its client went away")
	}
}
