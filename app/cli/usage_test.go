package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// TestUsagePrinted: agent list and work get print a session's and a
// packet's token usage, and say when a CLI reports none.
func TestUsagePrinted(t *testing.T) {
	h := newHarness(t)
	t.Setenv("HOME", t.TempDir()) // where the daemon looks for the CLIs' files
	// No poll of the agent's usage during the test: what it records is
	// what the test says (its CLI, a shell, writes no transcript).
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: h.paths, Keyring: h.kr, UsageEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(context.Background())
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)
	// A profile that says its CLI records usage the Claude Code way: the
	// completion's read finds no transcript and leaves the counts alone.
	h.ok("profile", "add", "counted", "--command", "/bin/sh", "--prompt", "none", "--usage", "claude")
	profiles := h.ok("profile", "list").stdout
	for _, want := range []string{"USAGE", "none reported"} {
		if !strings.Contains(profiles, want) {
			t.Errorf("profile list lacks %q:\n%s", want, profiles)
		}
	}
	for _, l := range strings.Split(profiles, "\n") {
		if strings.HasPrefix(l, "counted ") && !strings.Contains(l, "  claude  ") {
			t.Errorf("profile list's counted line: %q", l)
		}
	}
	ses := line(h.ok("agent", "start", "counted", "--repo", repoID).stdout)

	h.invoke(d, "agent.usage", map[string]any{"session_id": ses, "usage": store.Usage{Source: profile.UsageNone}})
	if out := h.ok("agent", "list").stdout; !strings.Contains(out, "USAGE") || !strings.Contains(out, "no usage reported") {
		t.Errorf("agent list of a CLI that reports no usage:\n%s", out)
	}
	h.invoke(d, "agent.usage", map[string]any{"session_id": ses, "usage": store.Usage{Source: profile.UsageClaude, InputTokens: 12345, OutputTokens: 1234, CacheReadTokens: 40000}})
	if out := h.ok("agent", "list").stdout; !strings.Contains(out, "12.3k in · 1.2k out · 40k cached") {
		t.Errorf("agent list with usage:\n%s", out)
	}

	pkt := line(h.ok("work", "create", "--repo", repoID, "--title", "counted").stdout)
	if out := h.ok("work", "get", pkt).stdout; !strings.Contains(out, "Usage:        none reported") {
		t.Errorf("work get of a packet nobody worked:\n%s", out)
	}
	claimed := h.invoke(d, "work.await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": 1})
	h.invoke(d, "work.complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": claimed["lease_id"], "summary": "done"})
	if out := h.ok("work", "get", pkt).stdout; !strings.Contains(out, "Usage:        12.3k in · 1.2k out · 40k cached (claude)") {
		t.Errorf("work get of a completed packet:\n%s", out)
	}
}
