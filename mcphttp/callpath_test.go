package mcphttp

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// TestCallPath is the workload `go run ./scripts/callpath` measures: the
// call path of one work_complete, the functions of this module it runs from
// the HTTP front to the store. The program runs this test twice in a
// coverage build, with SWITCHBOARD_CALLPATH=0 and =1 completions measured,
// and the blocks whose count grew in the second run are the completion's.
// Without the variable the test is skipped: alone it proves nothing the
// workflow tests do not.
//
// The completion is the fast path's (an agent's JSON-RPC tools/call over
// HTTP) on a session without a worktree (no git), in steady state: one
// completion has run before it in both runs, so what runs once per process
// (the first use of a cache) is not counted. SWITCHBOARD_CALLPATH_VIA
// measures parts of it: "invoke" is the same agent's call handed to
// Registry.Invoke in process (no HTTP front, no authentication), "operator"
// the person's (no token, nothing authorized).
func TestCallPath(t *testing.T) {
	measured := os.Getenv("SWITCHBOARD_CALLPATH")
	if measured != "0" && measured != "1" {
		t.Skip("the workload of go run ./scripts/callpath")
	}
	f, url, repo := workflowEnv(t)
	tok, raw := f.createClientToken(t)
	a := &agent{t, url, raw}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	claim := func() map[string]any {
		f.createPacket(t, repo.ID, nil)
		got := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 1})
		p := got["packet"].(map[string]any)
		return map[string]any{"packet_id": p["id"], "session_id": ses, "lease_id": got["lease_id"], "summary": "done"}
	}
	// The principal is made here, outside what is measured.
	via, p := os.Getenv("SWITCHBOARD_CALLPATH_VIA"), mcpserver.TokenPrincipal(tok)
	switch via {
	case "", "http", "invoke":
	case "operator":
		p = mcpserver.OperatorPrincipal()
	default:
		t.Fatalf("SWITCHBOARD_CALLPATH_VIA=%q: http, invoke or operator", via)
	}
	complete := func(args map[string]any) {
		if via == "" || via == "http" {
			if done := a.ok("work_complete", args); done["packet"].(map[string]any)["state"] != "done" {
				t.Fatalf("complete: %v", done)
			}
			return
		}
		b, _ := json.Marshal(args)
		if res := f.reg.Invoke(t.Context(), p, mcpserver.TransportMCP, "work.complete", b); res.Err != nil {
			t.Fatalf("complete: %v", res.Err)
		}
	}
	complete(claim())
	args := claim()
	if measured == "1" {
		complete(args)
	}
}
