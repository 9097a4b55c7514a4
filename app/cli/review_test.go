package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// exerciseReview gives verdicts with a Switchboard running (d) or not (d
// nil): request changes with notes and line comments, which the agent's
// next claim carries; reject; approve.
func exerciseReview(t *testing.T, h *harness, d *daemon.Daemon) {
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)
	ses := h.invoke(d, "session.report", map[string]any{"kind": "ready", "repository_id": repoID})["session_id"].(string)
	// inReview queues a packet that asks for review and completes it as
	// the agent.
	inReview := func(title string) string {
		t.Helper()
		id := line(h.ok("work", "create", "--repo", repoID, "--title", title, "--review").stdout)
		claim := h.invoke(d, "work.await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": -1})
		h.invoke(d, "work.complete", map[string]any{"packet_id": id, "session_id": ses, "lease_id": claim["lease_id"]})
		return id
	}
	pkt := inReview("Fix the parser")

	r := h.ok("review", pkt, "--request-changes", "--note", "Use the helper.", "--note", "And test it.",
		"--comment", "src/a.go:3:old=why = this?", "--comment", "odd:name.go:12=a path with a colon", "--comment", "docs/README.md:0=the whole file")
	if line(r.stdout) != pkt+" queued" || !strings.Contains(r.stderr, "3 line comments") {
		t.Fatalf("review --request-changes: %v", r)
	}
	rev := getPacket(h, pkt).Packet.Review
	want := []store.ReviewComment{
		{Path: "src/a.go", Line: 3, Side: "old", Text: "why = this?"},
		{Path: "odd:name.go", Line: 12, Side: "new", Text: "a path with a colon"},
		{Path: "docs/README.md", Line: 0, Side: "new", Text: "the whole file"},
	}
	if rev == nil || rev.Verdict != store.VerdictRequestChanges || rev.Notes != "Use the helper.\nAnd test it." || rev.By != "operator" || !slices.Equal(rev.Comments, want) {
		t.Fatalf("the packet's review: %+v", rev)
	}
	r = h.ok("work", "get", pkt)
	for _, want := range []string{"Verdict:      request_changes by operator", "Line comments:", "src/a.go:3 (old)", "    why = this?", "docs/README.md\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("work get of a packet sent back lacks %q:\n%s", want, r.stdout)
		}
	}
	claim := h.invoke(d, "work.await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": -1})
	got := claim["packet"].(map[string]any)
	review, _ := got["review"].(map[string]any)
	if got["id"] != pkt || review == nil || review["verdict"] != "request_changes" || len(review["comments"].([]any)) != 3 {
		t.Fatalf("the agent's next claim: %v", got)
	}
	h.invoke(d, "work.complete", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": claim["lease_id"]})

	var out mcpserver.PacketResult
	h.jsonOut(&out, "review", "--reject", pkt, "--note", "not needed after all", "--json")
	if out.Packet.State != store.PacketFailed || out.Packet.Review.Verdict != store.VerdictReject || len(out.Packet.Review.Comments) != 0 {
		t.Errorf("review --reject --json: %+v", out.Packet)
	}
	if r := h.fails(1, "review", pkt, "--approve"); !strings.Contains(r.stderr, "invalid_state") {
		t.Errorf("a verdict on a failed packet: %v", r)
	}

	other := inReview("Rename it")
	if r := h.ok("review", other, "--approve"); line(r.stdout) != other+" done" {
		t.Errorf("review --approve: %v", r)
	}
	// An agent outside a worktree of its own left no commit range.
	if r := h.ok("work", "get", other); !strings.Contains(r.stdout, "Changes:      no commit range") {
		t.Errorf("work get of a done packet with no worktree:\n%s", r.stdout)
	}
}

func TestCLIReviewAgainstRunningDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	exerciseReview(t, h, d)
}

func TestCLIReviewWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	exerciseReview(t, h, nil)
}

// A verdict needs a packet and exactly one of the three; a comment needs
// PATH:LINE[:old|new]=TEXT. Each mistake is a usage error (exit 2) that
// reaches no Switchboard; a bound the store enforces is invalid_argument.
func TestCLIReviewUsage(t *testing.T) {
	h := newHarness(t)
	if err := h.start().Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"review"},
		{"review", "pkt_x"},
		{"review", "pkt_x", "--approve", "--reject"},
		{"review", "pkt_x", "pkt_y", "--approve"},
		{"review", "pkt_x", "--request-changes", "--comment", "a.go=no line"},
		{"review", "pkt_x", "--request-changes", "--comment", "a.go:x=not a number"},
		{"review", "pkt_x", "--request-changes", "--comment", "a.go:3:left=no such side"},
		{"review", "pkt_x", "--request-changes", "--comment", "a.go:3="},
		{"review", "pkt_x", "--request-changes", "--comment", "a.go:3"},
	} {
		h.fails(2, args...)
	}
	if r := h.fails(1, "review", "pkt_nope", "--approve"); !strings.Contains(r.stderr, "not_found") {
		t.Errorf("review of an unknown packet: %v", r)
	}
	if r := h.fails(1, "review", "pkt_nope", "--request-changes", "--comment", "/etc/passwd:1=absolute"); !strings.Contains(r.stderr, "invalid_argument") {
		t.Errorf("a comment on an absolute path: %v", r)
	}
	if !strings.Contains(h.fails(2, "review").stderr, "--request-changes") {
		t.Error("review's usage does not name its flags")
	}
}
