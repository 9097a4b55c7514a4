package mcpserver

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/internal/testwait"
	"github.com/switchboard-dev/switchboard/store"
)

// startConflictWatch runs the registry's conflict watch until the test
// ends.
func startConflictWatch(t *testing.T, reg *Registry) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.WatchConflicts(ctx, ConflictPoll)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// waitConflicts waits, on the registry's change signal and at most until
// near the test's deadline, for work.get to show a status of the packet
// that cond accepts, and returns it.
func waitConflicts(t *testing.T, reg *Registry, pktID, what string, cond func(PacketConflicts) bool) PacketConflicts {
	t.Helper()
	end, stop := testwait.NearDeadline(t)
	defer stop()
	for {
		changed := reg.Changed()
		got, err := Invoke(context.Background(), reg, OperatorPrincipal(), TransportGUIView, MethodWorkGet, WorkGetArgs{PacketID: pktID})
		if err != nil {
			t.Fatal(err)
		}
		if got.Conflicts != nil && cond(*got.Conflicts) {
			return *got.Conflicts
		}
		select {
		case <-changed:
		case <-end:
			t.Fatalf("waited until near the test's deadline for %s; last status %+v", what, got.Conflicts)
		}
	}
}

// A done packet's conflict with main shows within 5 s of main moving,
// with the target's commit it was checked against and the hunks; main
// moving back out of the way clears it.
func TestConflictWatch(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "Two"}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "one\nagent's two\nthree\n")
	p, err := a.complete(got)
	if err != nil || p.State != store.PacketDone || p.Changes == nil {
		t.Fatalf("completion: %+v, %v", p, err)
	}
	tip := func() string { return strings.TrimSpace(testGit(t, dir, "rev-parse", "main")) }
	startConflictWatch(t, f.reg)

	first := tip()
	c := waitConflicts(t, f.reg, p.ID, "a clean status on main", func(c PacketConflicts) bool { return c.Target == first })
	if !c.Clean() || c.Error != "" || c.Head != p.Changes.To || c.TargetBranch != "main" {
		t.Fatalf("status before main moved: %+v", c)
	}

	// The person changes the same line on main.
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "one\nperson's two\nthree\n")
	testGit(t, dir, "commit", "-q", "-am", "person's two")
	moved, moveAt := tip(), time.Now()
	c = waitConflicts(t, f.reg, p.ID, "the conflict with main", func(c PacketConflicts) bool { return c.Target == moved })
	took := time.Since(moveAt)
	t.Logf("conflict status %v after main moved", took)
	if !c.Conflicting() || !slices.Equal(c.Files, []string{"a.txt"}) {
		t.Fatalf("status after main moved: %+v", c)
	}
	if took > 5*time.Second {
		t.Errorf("the conflict showed %v after main moved; the goal is 5 s", took)
	}

	list, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUIView, MethodWorkConflicts, RepoScope{RepositoryID: repo.ID})
	if err != nil || len(list.Conflicts) != 1 || list.Conflicts[0].PacketID != p.ID || !list.Conflicts[0].Conflicting() {
		t.Fatalf("work.conflicts = %+v, %v", list, err)
	}
	h, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUIView, MethodWorkConflictHunks, WorkConflictHunksArgs{PacketID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	want := "one\n<<<<<<< main\nperson's two\n=======\nagent's two\n>>>>>>> " + p.Changes.Branch + "\nthree\n"
	if h.Status.Target != moved || len(h.Files) != 1 || h.Files[0].Path != "a.txt" || len(h.Files[0].Hunks) != 1 || h.Files[0].Hunks[0].Text != want {
		t.Fatalf("work.conflict_hunks = %+v, want a.txt's hunk\n%s", h, want)
	}

	// main moves on and puts the line back: the packet applies again.
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	testGit(t, dir, "commit", "-q", "-am", "two again")
	back := tip()
	c = waitConflicts(t, f.reg, p.ID, "a clean status again", func(c PacketConflicts) bool { return c.Target == back })
	if !c.Clean() {
		t.Fatalf("status once main took the line back: %+v", c)
	}
}

// work.send_back_conflicts refuses a packet that applies, and sends a
// conflicting one back with the conflict as its review; its agent's next
// claim carries the review and goes on with the same attempt.
func TestSendBackConflicts(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "Two", MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), "one\nagent's two\nthree\n")
	p, err := a.complete(got)
	if err != nil || p.Attempt != 1 {
		t.Fatalf("completion: %+v, %v", p, err)
	}
	send := func() (PacketResult, error) {
		return Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkSendBackConflicts, WorkConflictHunksArgs{PacketID: p.ID})
	}
	if _, err := send(); store.CodeOf(err) != store.CodeInvalidState {
		t.Fatalf("sending back a packet that applies: %v", err)
	}

	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "one\nperson's two\nthree\n")
	testGit(t, dir, "commit", "-q", "-am", "person's two")
	main := strings.TrimSpace(testGit(t, dir, "rev-parse", "main"))
	sent, err := send()
	if err != nil {
		t.Fatal(err)
	}
	r := sent.Packet.Review
	if sent.Packet.State != store.PacketQueued || r == nil || r.Verdict != store.VerdictRequestChanges ||
		!strings.Contains(r.Notes, "conflict with main (at "+main[:12]+") in 1 file(s): a.txt") || !strings.Contains(r.Notes, "does not count") ||
		len(r.Comments) != 1 || r.Comments[0].Path != "a.txt" || !strings.Contains(r.Comments[0].Text, "<<<<<<< main\nperson's two\n=======\nagent's two\n>>>>>>> ") {
		t.Fatalf("sent back: %s, review %+v", sent.Packet.State, r)
	}
	again := a.claim(t, repo.ID)
	if again.Packet.ID != p.ID || again.Packet.Review == nil || len(again.Packet.Review.Comments) != 1 {
		t.Fatalf("the agent's next claim: %+v", again.Packet)
	}
	claimed, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUIView, MethodWorkGet, WorkGetArgs{PacketID: p.ID})
	if err != nil || claimed.Packet.Attempt != 1 || claimed.Packet.State != store.PacketClaimed {
		t.Fatalf("after the claim: attempt %d of %d, %s, %v; want the same attempt, 1", claimed.Packet.Attempt, claimed.Packet.MaxAttempts, claimed.Packet.State, err)
	}
}

// The watch runs git for the target tips only when their ref files moved,
// or conflictTipsEvery after its last read: a folder git cannot read
// stands in for the repository to tell whether it ran.
func TestConflictWatchReadsTipsWhenRefsMove(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	nowhere := filepath.Join(t.TempDir(), "not-a-repository")
	wr := &watchedRepo{commonDir: filepath.Join(dir, ".git")}
	branches := []string{"main"}
	at := time.Now()
	tips, err := wr.branchTips(ctx, dir, branches, at)
	first := strings.TrimSpace(testGit(t, dir, "rev-parse", "main"))
	if err != nil || tips["main"] != first {
		t.Fatalf("first read: %v, %v", tips, err)
	}
	if tips, err := wr.branchTips(ctx, nowhere, branches, at.Add(time.Second)); err != nil || tips["main"] != first {
		t.Fatalf("nothing moved: %v, %v; want the last read, without git", tips, err)
	}
	if _, err := wr.branchTips(ctx, nowhere, branches, at.Add(conflictTipsEvery)); err == nil {
		t.Fatalf("%v after the last read: no git run", conflictTipsEvery)
	}
	if _, err := wr.branchTips(ctx, dir, branches, at); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "moved\n")
	testGit(t, dir, "commit", "-q", "-am", "moved")
	if _, err := wr.branchTips(ctx, nowhere, branches, at.Add(time.Second)); err == nil {
		t.Fatal("main moved: no git run")
	}
	tips, err = wr.branchTips(ctx, dir, branches, at.Add(2*time.Second))
	if moved := strings.TrimSpace(testGit(t, dir, "rev-parse", "main")); err != nil || tips["main"] != moved {
		t.Fatalf("after main moved: %v, %v; want %s", tips, err, moved)
	}
}
