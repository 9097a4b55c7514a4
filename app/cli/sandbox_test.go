package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// sandbox set adds and removes hidden paths and sets the recordings' cap;
// sandbox shows them; a relative path is refused.
func TestCLISandbox(t *testing.T) {
	h := newHarness(t)
	d := h.start() // through the running app's control socket
	defer d.Close(context.Background())
	var got mcpserver.SandboxSettings
	h.jsonOut(&got, "sandbox", "set", "--hide", "/srv/secrets", "--hide", "/home/x/.config/op", "--recording-cap", "64", "--json")
	if len(got.Hidden) != 2 || got.RecordingCapMiB != 64 {
		t.Fatalf("after set: %+v", got)
	}
	got = mcpserver.SandboxSettings{} // a field left out of the JSON is the default
	h.jsonOut(&got, "sandbox", "set", "--unhide", "/srv/secrets", "--recording-cap", "0", "--json")
	if len(got.Hidden) != 1 || got.Hidden[0] != "/home/x/.config/op" || got.RecordingCapMiB != 0 {
		t.Fatalf("after unhide: %+v", got)
	}
	if r := h.ok("sandbox"); !strings.Contains(r.stdout, "/home/x/.config/op") || !strings.Contains(r.stdout, "256 MiB a session (the default)") {
		t.Errorf("sandbox show:\n%s", r.stdout)
	}
	if r := h.run("sandbox", "set", "--hide", "relative/path"); r.code == 0 || !strings.Contains(r.stderr, "not absolute") {
		t.Errorf("a relative path: exit %d, %s", r.code, r.stderr)
	}
}
