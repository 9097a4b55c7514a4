package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// review --approve records the verdict and moves nothing; land --dry-run
// prints the target, the mode, the commit and the file, as JSON too, and
// moves nothing; land then lands. work review-by names a session the
// packet's reviewer, or none: another agent judges it only meanwhile.
func TestCLIApproveIsNotLand(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	ctx := context.Background()
	git := func(dir string, args ...string) string { t.Helper(); return gitIn(t, dir, args...) }
	repoDir := personRepo(t)

	h := newHarness(t)
	d := h.start()
	defer d.Close(ctx)
	repoID := line(h.ok("repo", "add", repoDir).stdout)
	pkt := line(h.ok("work", "create", "--repo", repoID, "--title", "Write one", "--review").stdout)
	_, agent := agentWrites(t, h, d, repoID, pkt, "one.txt", "one\n")
	// The agent may not judge its own work, nor make itself its reviewer.
	if _, err := mcpserver.Invoke(ctx, d.Registry(), agent, mcpserver.TransportMCP, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{PacketID: pkt, Verdict: store.VerdictApprove}); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
		t.Errorf("the agent approving its own packet: %v", err)
	}
	if r := h.fails(1, "work", "review-by", pkt, agent.SessionID); !strings.Contains(r.stderr, "invalid_argument") {
		t.Errorf("review-by the session that did the work: %v", r)
	}
	if r := h.fails(2, "work", "review-by", pkt); !strings.Contains(r.stderr, "--none") {
		t.Errorf("review-by without a session: %v", r)
	}
	// Another agent judges it only once a person made it the reviewer.
	other := h.invoke(d, "agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repoID})
	var rev store.Session
	h.view(d, func(tx *store.Tx) error {
		var err error
		rev, err = tx.Session(other["session_id"].(string))
		return err
	})
	reviewer := mcpserver.Principal{KeyID: rev.TokenKeyID, SessionID: rev.ID}
	notes := mcpserver.VerdictArgs{PacketID: pkt, Verdict: store.VerdictRequestChanges, Notes: "n"}
	if _, err := mcpserver.Invoke(ctx, d.Registry(), reviewer, mcpserver.TransportMCP, mcpserver.MethodReviewVerdict, notes); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
		t.Errorf("another agent, unassigned: %v", err)
	}
	if r := h.ok("work", "review-by", pkt, rev.ID); line(r.stdout) != pkt+" reviewed by session "+rev.ID {
		t.Errorf("review-by: %v", r)
	}
	if r := h.ok("work", "get", pkt); !strings.Contains(r.stdout, "Reviewer:     session "+rev.ID+"\n") {
		t.Errorf("work get of a packet with a reviewer:\n%s", r.stdout)
	}
	if r := h.ok("work", "review-by", pkt, "--none"); line(r.stdout) != pkt+" reviewed by a person" {
		t.Errorf("review-by --none: %v", r)
	}
	if _, err := mcpserver.Invoke(ctx, d.Registry(), reviewer, mcpserver.TransportMCP, mcpserver.MethodReviewVerdict, notes); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
		t.Errorf("another agent, no longer assigned: %v", err)
	}

	tip := git(repoDir, "rev-parse", "main")
	if r := h.ok("review", pkt, "--approve"); line(r.stdout) != pkt+" done" || !strings.Contains(r.stderr, "switchboard land "+pkt) {
		t.Errorf("review --approve: %v", r)
	}
	if now := git(repoDir, "rev-parse", "main"); now != tip {
		t.Fatalf("approving moved main from %s to %s", tip, now)
	}

	var change mcpserver.WorkGetResult
	h.jsonOut(&change, "work", "get", pkt, "--json")
	ch := change.Packet.Changes
	r := h.ok("land", "--dry-run", pkt)
	subject := git(repoDir, "log", "-1", "--format=%s", ch.To)
	for _, want := range []string{
		"Land " + pkt + " onto main (at " + tip[:12] + ") by merge (the repository's default)",
		"1 commits:\n  " + ch.To[:12] + "  " + subject + "\n",
		"1 files:\n  A  one.txt\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("land --dry-run lacks %q:\n%s", want, r.stdout)
		}
	}
	var plan mcpserver.LandPlanResult
	h.jsonOut(&plan, "land", pkt, "--mode", "squash", "--dry-run", "--json")
	if plan.Mode != "squash" || plan.DefaultMode != "merge" || plan.Target != "main" || len(plan.Commits) != 1 || len(plan.Files) != 1 || plan.Files[0].Path != "one.txt" {
		t.Errorf("land --dry-run --json: %+v", plan)
	}
	if now := git(repoDir, "rev-parse", "main"); now != tip {
		t.Fatalf("a dry run moved main from %s to %s", tip, now)
	}
	if r := h.ok("land", pkt); !strings.Contains(r.stderr, "Landed "+pkt+" on main (merge, 1 files)") {
		t.Errorf("land: %v", r)
	}
	if r := h.fails(1, "land", "--dry-run", pkt); !strings.Contains(r.stderr, "invalid_state") {
		t.Errorf("a dry run of a landed packet: %v", r)
	}
}
