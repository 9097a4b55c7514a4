package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// The review loop after a conflict (issue 15): two agents change the same
// line; the first lands and the second is refused as merge_conflict. Sent
// back with a line comment, the second packet waits for its own agent
// (the other is not given it); that agent's next claim carries the review
// and the comment; it rebases onto the moved base in its worktree,
// resolves, and completes; the packet's range then holds its own change
// only, and it lands.
func TestSendBackRebaseLand(t *testing.T) {
	repoDir := personRepo(t, map[string]string{"greet.txt": "hello\n", "other.txt": "other\n"})

	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	repo := registerRepo(t, reg, repoDir)
	var err error

	type agent struct {
		p  mcpserver.Principal
		ws store.Workspace
	}
	newAgent := func() agent {
		t.Helper()
		started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID})
		mustOK(t, err)
		var ses store.Session
		d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
		if ses.Workspace == nil {
			t.Fatalf("agent %s has no worktree", ses.ID)
		}
		return agent{p: mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}, ws: *ses.Workspace}
	}
	await := func(a agent) mcpserver.AwaitResult {
		t.Helper()
		got, err := mcpserver.Invoke(ctx, reg, a.p, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
		mustOK(t, err)
		return got
	}
	complete := func(a agent, got mcpserver.AwaitResult) store.Packet {
		t.Helper()
		out, err := mcpserver.Invoke(ctx, reg, a.p, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: got.Packet.ID, LeaseID: got.LeaseID})
		mustOK(t, err)
		return out.Packet
	}
	land := func(pkt string) (mcpserver.LandResult, error) {
		return mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: pkt})
	}
	work := func(a agent, line string) string {
		t.Helper()
		_, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "Greet " + line})
		mustOK(t, err)
		got := await(a)
		writeFile(t, a.ws.Path, "greet.txt", line+"\n")
		complete(a, got)
		return got.Packet.ID
	}

	one, two := newAgent(), newAgent()
	first, second := work(one, "hello, world"), work(two, "hi there")
	_, err = land(first)
	mustOK(t, err)
	_, err = land(second)
	if store.CodeOf(err) != store.CodeMergeConflict || !strings.Contains(err.Error(), "greet.txt") {
		t.Fatalf("landing the second: %v, want merge_conflict naming greet.txt", err)
	}

	// Send back, with a line comment on the line that conflicts.
	comment := store.ReviewComment{Path: "greet.txt", Line: 1, Side: store.SideNew, Text: "keep both greetings"}
	notes := "rebase onto main and resolve: greet.txt"
	sent, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodReviewVerdict,
		mcpserver.VerdictArgs{PacketID: second, Verdict: store.VerdictRequestChanges, Notes: notes, Comments: []store.ReviewComment{comment}})
	mustOK(t, err)
	if p := sent.Packet; p.State != store.PacketQueued || p.Review == nil || p.Review.By != "operator" || p.HeldFor() != two.p.SessionID {
		t.Fatalf("sent back: %s, review %+v, held for %q", p.State, p.Review, p.HeldFor())
	}
	got, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: second})
	mustOK(t, err)
	if r := got.Packet.Review; r == nil || r.Notes != notes || len(r.Comments) != 1 || r.Comments[0] != comment {
		t.Errorf("work.get's review: %+v", r)
	}
	if other := await(one); other.Packet != nil {
		t.Fatalf("the other agent was given %s, sent back to its maker", other.Packet.ID)
	}
	again := await(two)
	if again.Packet == nil || again.Packet.ID != second || again.Packet.Review == nil ||
		again.Packet.Review.Verdict != store.VerdictRequestChanges || again.Packet.Review.Notes != notes ||
		len(again.Packet.Review.Comments) != 1 || again.Packet.Review.Comments[0] != comment {
		t.Fatalf("the maker's next claim: %+v", again.Packet)
	}

	// The agent rebases onto main, resolves the conflict and goes on.
	dir := two.ws.Path
	if _, err := runGit(dir, "rebase", "main"); err == nil {
		t.Fatal("the rebase did not conflict")
	}
	writeFile(t, dir, "greet.txt", "hello, world and hi there\n")
	git(t, dir, "add", "greet.txt")
	git(t, dir, "rebase", "--continue")
	main := strings.TrimSpace(git(t, repoDir, "rev-parse", "main"))
	done := complete(two, again)
	ch := done.Changes
	if ch == nil || ch.From != main || ch.To != strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")) || ch.Files != 1 || ch.Added != 1 || ch.Deleted != 1 {
		t.Fatalf("changes after the rebase: %+v, want from main's %s", ch, main)
	}
	diff, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: second})
	mustOK(t, err)
	if !strings.Contains(diff.Diff, "-hello, world\n") || !strings.Contains(diff.Diff, "+hello, world and hi there\n") || strings.Contains(diff.Diff, "-hello\n") {
		t.Errorf("the packet's diff is not its own change:\n%s", diff.Diff)
	}
	// What the agent changed after the review: from the commit it saw.
	since, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff,
		mcpserver.WorkDiffArgs{PacketID: second, Range: mcpserver.DiffSinceReview})
	mustOK(t, err)
	if r := sent.Packet.Review; r.To == "" || since.From != r.To || since.To != ch.To || !strings.Contains(since.Diff, "+hello, world and hi there\n") {
		t.Errorf("since the review (at %q): %s..%s\n%s", r.To, since.From, since.To, since.Diff)
	}
	reviewed, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff,
		mcpserver.WorkDiffArgs{PacketID: second, Range: mcpserver.DiffReviewed})
	mustOK(t, err)
	if reviewed.To != sent.Packet.Review.To || !strings.Contains(reviewed.Diff, "+hi there\n") {
		t.Errorf("as reviewed: %s..%s\n%s", reviewed.From, reviewed.To, reviewed.Diff)
	}
	_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff,
		mcpserver.WorkDiffArgs{PacketID: second, Range: "HEAD~1"})
	if store.CodeOf(err) != store.CodeInvalidArgument {
		t.Errorf("an unknown range: %v", err)
	}

	landed, err := land(second)
	mustOK(t, err)
	if tip := strings.TrimSpace(git(t, repoDir, "rev-parse", "main")); tip != landed.Commit {
		t.Errorf("landed as %s, main at %s", landed.Commit, tip)
	}
	if got, err := os.ReadFile(filepath.Join(repoDir, "greet.txt")); err != nil || string(got) != "hello, world and hi there\n" {
		t.Errorf("greet.txt in the person's checkout: %q, %v", got, err)
	}

	// The person's checkout marks greet.txt generated: the diff says so.
	writeFile(t, repoDir, ".gitattributes", "greet.txt linguist-generated\n")
	diff, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: second})
	mustOK(t, err)
	if !slices.Equal(diff.Generated, []string{"greet.txt"}) {
		t.Errorf("generated files %q, want greet.txt", diff.Generated)
	}
}

// runGit is git as git() runs it, its failure returned rather than fatal.
func runGit(dir string, args ...string) ([]byte, error) {
	return gitcmd.Run(context.Background(), dir, append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
}
