//go:build unix

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// The stand-in model answers every request with the same usage: 1200
// input and 40 output tokens (test/standinmodel).
const standinIn, standinOut = 1200, 40

// usageSource is where a real CLI's session usage is read from: Claude
// Code's transcript, Codex's rollout file, Gemini CLI's chat file.
func usageSource(cli string) string {
	switch cli {
	case "claude":
		return profile.UsageClaude
	case "codex":
		return profile.UsageCodex
	case "gemini":
		return profile.UsageGemini
	}
	return ""
}

// checkRealUsage checks, after r's CLI, started by its built-in profile,
// has worked its one packet against the stand-in model, that its session
// shows the token counts of the stand-in's replies, read from the CLI's
// own files (agent list), and the packet its share. TestRealCLIModes runs
// it on each CLI's run in ask, the default mode: a run of its own would
// be the same scenario again.
func checkRealUsage(t *testing.T, r *realRun, cli string) {
	t.Helper()
	source := usageSource(cli)
	var (
		u       *store.Usage
		replies int
	)
	if !eventually(t, func() bool {
		var list mcpserver.AgentList
		if err := json.Unmarshal([]byte(mustCLI(t, r.env, "agent", "list", "--json")), &list); err != nil {
			t.Fatalf("agent list --json: %v", err)
		}
		for _, a := range list.Agents {
			if a.SessionID == r.session {
				u = a.Usage
			}
		}
		// Every reply of the model's is counted once: the session's whole
		// conversation so far (its closing text may come after the packet
		// is done).
		replies = modelReplies(r.model.Log())
		return u != nil && u.InputTokens == int64(replies*standinIn) && u.OutputTokens == int64(replies*standinOut)
	}) {
		t.Fatalf("the session's usage is %+v; the stand-in gave %d replies of %d in, %d out.\nThe model's log:\n%s",
			u, replies, standinIn, standinOut, r.model.Log())
	}
	t.Logf("figure: %s session usage %s (source %s) for %d replies", cli, u.Summary(), u.Source, replies)
	if u.Source != source {
		t.Errorf("usage source %q, want %s", u.Source, source)
	}
	out := mustCLI(t, r.env, "agent", "list")
	if !strings.Contains(out, u.Summary()) {
		t.Errorf("agent list does not print the usage %q:\n%s", u.Summary(), out)
	}

	// The packet's share: the replies up to its completion, the one that
	// completed it included (at least await, ack, publish and complete).
	var list mcpserver.WorkList
	if err := json.Unmarshal([]byte(mustCLI(t, r.env, "work", "list", "--repo", r.repo, "--json")), &list); err != nil || len(list.Packets) != 1 {
		t.Fatalf("work list --json: %v %+v", err, list)
	}
	p := list.Packets[0].Usage
	if p == nil || p.InputTokens < 4*standinIn || p.InputTokens%standinIn != 0 || p.OutputTokens*standinIn != p.InputTokens*standinOut {
		t.Errorf("the packet's usage %+v, want whole replies of %d in, %d out, at least 4", p, standinIn, standinOut)
	} else {
		t.Logf("figure: %s packet's usage %s", cli, p.Summary())
	}
}

// modelReplies counts the replies the stand-in's policy gave, a log line
// "→ …" each: the conversation's turns, not the side questions a CLI asks
// on its own (Gemini CLI's complexity check), which its session file does
// not keep.
func modelReplies(log string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "→ ") {
			n++
		}
	}
	return n
}
