package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The GUI's refresh reads are in the log but left out of audit and audit
// --follow until --views asks for them; --verify counts them.
func TestCLIAuditViews(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	reg := d.Registry()
	refresh := func() {
		t.Helper()
		if _, err := mcpserver.Invoke(context.Background(), reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUIView, mcpserver.MethodSessionList, store.SessionFilter{}); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		refresh()
	}
	h.ok("status")

	methods := func(args ...string) map[string]int {
		t.Helper()
		var out struct {
			Records []store.AuditRecord `json:"records"`
		}
		h.jsonOut(&out, append([]string{"audit", "--json", "--limit", "1000"}, args...)...)
		seen := map[string]int{}
		for _, r := range out.Records {
			seen[r.Transport+" "+r.Method]++
		}
		return seen
	}
	if got := methods(); got["gui-view session.list"] != 0 || got["rpc status"] != 1 {
		t.Errorf("audit: %v; want the status call and no refresh", got)
	}
	if got := methods("--views"); got["gui-view session.list"] != 5 || got["rpc status"] != 1 {
		t.Errorf("audit --views: %v; want 5 refreshes and the status call", got)
	}
	if r := h.ok("audit", "--verify"); !strings.Contains(r.stdout, "(5 of them app refreshes)") {
		t.Errorf("audit --verify printed %q", r.stdout)
	}

	// Followed without --views, a refresh between two calls is skipped;
	// with it, printed.
	for _, views := range []bool{false, true} {
		args := []string{"--json", "--limit", "1"}
		if views {
			args = append(args, "--views")
		}
		f := h.follow(args...)
		f.waitFor("the first page", func(out string) bool { return strings.Count(out, "\n") == 1 })
		refresh()
		h.ok("token", "list")
		out := f.waitFor("token.list", func(out string) bool { return strings.Contains(out, `"method":"token.list"`) })
		if code := f.stop(); code != 0 {
			t.Errorf("exit %d", code)
		}
		refreshes := 0
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:] {
			var r store.AuditRecord
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			if r.IsView() {
				refreshes++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[views]; refreshes != want {
			t.Errorf("follow, views %v: %d refreshes printed, want %d:\n%s", views, refreshes, want, out)
		}
	}
}
