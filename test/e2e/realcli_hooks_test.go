//go:build unix

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// TestRealCLIClaudeHooks runs Claude Code through its built-in profile on
// the stand-in model and checks that its own hooks reached Switchboard
// from the per-session settings file: UserPromptSubmit (the bootstrap
// prompt), PostToolUse (its Switchboard tool calls) and, once its turn
// ended, Stop, each an audited session.signal of the session over the
// hook transport; agent list then shows the agent's last word.
func TestRealCLIClaudeHooks(t *testing.T) {
	r := runRealCLI(t, claudeCLI, 1)
	digest := func(event string) string {
		b, _ := json.Marshal(mcpserver.SignalArgs{Event: event})
		return store.ArgsDigest(b)
	}
	want := map[string]string{digest("UserPromptSubmit"): "UserPromptSubmit", digest("PostToolUse"): "PostToolUse", digest("Stop"): "Stop"}
	var recs []store.AuditRecord
	var seen map[string]bool
	if !eventually(t, func() bool {
		var audit struct {
			Records []store.AuditRecord `json:"records"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, r.env, "audit", "--method", "session.signal", "--limit", "500", "--json")), &audit); err != nil {
			t.Fatalf("audit --json: %v", err)
		}
		recs, seen = audit.Records, map[string]bool{}
		for _, rec := range recs {
			if rec.SessionID == r.session && rec.Transport == string(mcpserver.TransportHook) && rec.Outcome == "ok" {
				seen[want[rec.ArgsDigest]] = true
			}
		}
		return seen["UserPromptSubmit"] && seen["PostToolUse"] && seen["Stop"]
	}) {
		t.Fatalf("hooks seen %v of UserPromptSubmit, PostToolUse, Stop (audit: %d session.signal records).\nThe agent's last screen:\n%s",
			seen, len(recs), lastScreen(r.d, r.session))
	}
	var list mcpserver.AgentList
	if err := json.Unmarshal([]byte(mustCLI(t, r.env, "agent", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list.Agents {
		if a.SessionID == r.session && (a.Signal == nil || a.Signal.Source != supervisor.SourceHook) {
			t.Errorf("agent list: %+v, signal %+v; want the hooks' last word", a, a.Signal)
		}
	}
}
