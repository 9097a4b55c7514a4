package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// connection set changes what it is given and keeps the rest; refusals
// carry the registry's code; show prints what is saved.
func TestConnectionCLI(t *testing.T) {
	h := newHarness(t)
	d := h.start() // through the running app's control socket
	defer d.Close(context.Background())
	var got mcpserver.ConnectionSettings
	h.jsonOut(&got, "connection", "--json")
	if got.ListenAddr != "" || len(got.AllowOrigins) != 0 {
		t.Fatalf("fresh: %+v", got)
	}
	h.jsonOut(&got, "connection", "set", "--listen", "8765", "--origin", "HTTPS://Tools.Example", "--origin", "http://localhost:3000", "--json")
	if got.ListenAddr != "8765" || !slices.Equal(got.AllowOrigins, []string{"https://tools.example", "http://localhost:3000"}) {
		t.Errorf("after set: %+v", got)
	}
	h.jsonOut(&got, "connection", "set", "--listen", "default", "--json")
	if got.ListenAddr != "" || len(got.AllowOrigins) != 2 {
		t.Errorf("--listen default kept the origins and cleared the address? %+v", got)
	}
	if r := h.ok("connection"); !strings.Contains(r.stdout, "listen address: default") || !strings.Contains(r.stdout, "https://tools.example") {
		t.Errorf("show:\n%s", r.stdout)
	}
	h.jsonOut(&got, "connection", "set", "--no-origins", "--json")
	if len(got.AllowOrigins) != 0 {
		t.Errorf("--no-origins: %+v", got)
	}
	if r := h.run("connection", "set", "--listen", "0.0.0.0:8765"); r.code == 0 || !strings.Contains(r.stderr, "invalid_argument") {
		t.Errorf("a non-loopback address: %v", r)
	}
	h.fails(2, "connection", "set")
	h.fails(2, "connection", "set", "--origin", "https://a.example", "--no-origins")
}
