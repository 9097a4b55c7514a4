package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// landEnv is a person's repository with a.txt, b.txt and c.txt, and an
// agent working in a worktree of its own.
type landEnv struct {
	f    *fixture
	dir  string
	repo store.Repository
	a    *gitAgent
}

func newLandEnv(t *testing.T) *landEnv {
	t.Helper()
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	return &landEnv{f: f, dir: dir, repo: repo, a: newGitAgent(t, f, repo, t.TempDir())}
}

// work has the agent take a new packet (review required, within scope),
// write files (path → text) in its worktree and complete it.
func (e *landEnv) work(t *testing.T, title string, scope []string, files map[string]string) store.Packet {
	t.Helper()
	if _, err := Invoke(context.Background(), e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate,
		WorkCreateArgs{RepositoryID: e.repo.ID, Title: title, WriteScope: scope, ReviewRequired: true}); err != nil {
		t.Fatal(err)
	}
	got := e.a.claim(t, e.repo.ID)
	for name, text := range files {
		gittest.WriteFile(t, filepath.Join(e.a.ws.Path, name), text)
	}
	p, err := e.a.complete(got)
	if err != nil || p.State != store.PacketInReview || p.Changes == nil {
		t.Fatalf("completing %s: %+v, %v", title, p, err)
	}
	return p
}

func (e *landEnv) verdict(t *testing.T, id string, v store.Verdict) {
	t.Helper()
	if _, err := Invoke(context.Background(), e.f.reg, OperatorPrincipal(), TransportGUI, MethodReviewVerdict, VerdictArgs{PacketID: id, Verdict: v, Notes: "n"}); err != nil {
		t.Fatal(err)
	}
}

func (e *landEnv) land(id string) (LandResult, error) {
	return Invoke(context.Background(), e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkLand, WorkLandArgs{PacketID: id})
}

// mainHas reports what main's file name holds.
func (e *landEnv) mainHas(t *testing.T, name string) string {
	t.Helper()
	return testGit(t, e.dir, "show", "main:"+name)
}

// One agent works three packets in turn in its worktree (a.txt, b.txt,
// c.txt). Landed in every order, main gets each packet's file when that
// packet lands and never before; a rejected packet, and those still
// waiting for review, are never on main, neither their files nor their
// commits.
func TestLandBringsOnlyThePacketsOwnCommits(t *testing.T) {
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, order := range orders {
		for _, reject := range []bool{false, true} {
			name := fmt.Sprint(order)
			if reject {
				// The packet landed second in this order is rejected
				// instead: each of the three is, in some order.
				name += fmt.Sprintf(" packet %d rejected", order[1])
			}
			t.Run(name, func(t *testing.T) {
				e := newLandEnv(t)
				names := [3]string{"a.txt", "b.txt", "c.txt"}
				var ps [3]store.Packet
				for i, n := range names {
					ps[i] = e.work(t, fmt.Sprintf("Edit %s", n), nil, map[string]string{n: n + ", by the agent\n"})
				}
				landed := map[int]bool{}
				for k, i := range order {
					if reject && k == 1 {
						e.verdict(t, ps[i].ID, store.VerdictReject)
						if _, err := e.land(ps[i].ID); store.CodeOf(err) != store.CodeInvalidState {
							t.Fatalf("landing the rejected packet %d: %v, want invalid_state", i, err)
						}
					} else {
						e.verdict(t, ps[i].ID, store.VerdictApprove)
						out, err := e.land(ps[i].ID)
						if err != nil {
							t.Fatalf("landing packet %d: %v", i, err)
						}
						if out.Files != 1 || out.Packet.Landed == nil {
							t.Errorf("packet %d landed %d files (%+v), want 1", i, out.Files, out.Packet.Landed)
						}
						landed[i] = true
					}
					log := testGit(t, e.dir, "log", "--format=%B", "main")
					for j, n := range names {
						if got, want := e.mainHas(t, n) == n+", by the agent\n", landed[j]; got != want {
							t.Errorf("after packet %d: main's %s is %q; packet %d landed: %v", i, n, e.mainHas(t, n), j, want)
						}
						if got := strings.Contains(log, ps[j].ID); got != landed[j] {
							t.Errorf("after packet %d: packet %d's id in main's history: %v, landed: %v", i, j, got, landed[j])
						}
					}
				}
			})
		}
	}
}

// A packet that changes the lines an earlier packet of its session wrote
// cannot land before it: the refusal names the earlier packet and says
// what would let both land, and once the earlier one has landed, it lands.
func TestLandDependsOnPacket(t *testing.T) {
	e := newLandEnv(t)
	first := e.work(t, "First", nil, map[string]string{"a.txt": "a, by the first\n"})
	second := e.work(t, "Second", nil, map[string]string{"a.txt": "a, by the first and the second\n"})
	e.verdict(t, second.ID, store.VerdictApprove)
	tip := testGit(t, e.dir, "rev-parse", "main")

	var d *store.Denial
	_, err := e.land(second.ID)
	if store.CodeOf(err) != store.CodeDependsOnPacket || !errors.As(err, &d) || !strings.Contains(d.Reason, first.ID+" is in_review") ||
		!strings.Contains(d.Reason, "land both") || !slices.Equal(d.Paths, []string{"a.txt"}) {
		t.Fatalf("landing the second while the first waits for review: %v", err)
	}
	e.verdict(t, first.ID, store.VerdictApprove)
	_, err = e.land(second.ID)
	if !errors.As(err, &d) || d.Code != store.CodeDependsOnPacket || !strings.Contains(d.Reason, "land both: "+first.ID+" first, then "+second.ID) {
		t.Fatalf("landing the second before the first: %v; want depends_on_packet offering to land both", err)
	}
	if !slices.Equal(d.Packets, []string{first.ID}) {
		t.Errorf("the denial's packets %v; want the one to land first, %s", d.Packets, first.ID)
	}
	if now := testGit(t, e.dir, "rev-parse", "main"); now != tip {
		t.Fatalf("a refused landing moved main to %s", now)
	}
	for _, p := range []store.Packet{first, second} {
		if _, err := e.land(p.ID); err != nil {
			t.Fatalf("landing %s: %v", p.Title, err)
		}
	}
	if got := e.mainHas(t, "a.txt"); got != "a, by the first and the second\n" {
		t.Errorf("main's a.txt: %q", got)
	}

	// The first rejected: the second cannot land as it is.
	e = newLandEnv(t)
	first = e.work(t, "First", nil, map[string]string{"a.txt": "a, by the first\n"})
	second = e.work(t, "Second", nil, map[string]string{"a.txt": "a, by the first and the second\n"})
	e.verdict(t, first.ID, store.VerdictReject)
	e.verdict(t, second.ID, store.VerdictApprove)
	_, err = e.land(second.ID)
	if !errors.As(err, &d) || d.Code != store.CodeDependsOnPacket || !strings.Contains(d.Reason, first.ID+" is failed") || !strings.Contains(d.Reason, "send it back") {
		t.Fatalf("landing the second over a rejected first: %v", err)
	}
	if got := e.mainHas(t, "a.txt"); got != "a\n" {
		t.Errorf("main's a.txt: %q", got)
	}
}

// The write scope is checked again when the packet lands, on what the
// landing changes: a packet whose recorded range holds a file outside its
// scope (a record made before the completion checked the commit) is
// refused, and main does not move.
func TestLandChecksTheWriteScope(t *testing.T) {
	e := newLandEnv(t)
	ctx := context.Background()
	if _, err := Invoke(ctx, e.f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate,
		WorkCreateArgs{RepositoryID: e.repo.ID, Title: "A", WriteScope: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	got := e.a.claim(t, e.repo.ID)
	gittest.WriteFile(t, filepath.Join(e.a.ws.Path, "a.txt"), "a, by the agent\n")
	gittest.WriteFile(t, filepath.Join(e.a.ws.Path, "docs", "evil.md"), "outside\n")
	testGit(t, e.a.ws.Path, "add", "-A")
	testGit(t, e.a.ws.Path, "commit", "-q", "-m", "agent")
	if _, err := e.a.complete(got); store.CodeOf(err) != store.CodeWriteScopeViolation {
		t.Fatalf("completing with the agent's own commit outside the scope: %v", err)
	}
	head := strings.TrimSpace(testGit(t, e.a.ws.Path, "rev-parse", "HEAD"))
	e.f.update(t, func(tx *store.Tx) error {
		ses, err := tx.Session(e.a.ses)
		if err != nil {
			return err
		}
		_, err = tx.CompletePacket(got.Packet.ID, &ses, got.LeaseID, store.Completion{Changes: &store.PacketChanges{SessionID: e.a.ses,
			Branch: e.a.ws.Branch, BaseBranch: "main", From: e.a.ws.BaseCommit, To: head, Files: 2}})
		return err
	})
	tip := testGit(t, e.dir, "rev-parse", "main")
	var d *store.Denial
	if _, err := e.land(got.Packet.ID); !errors.As(err, &d) || d.Code != store.CodeWriteScopeViolation || !slices.Equal(d.Paths, []string{"docs/evil.md"}) {
		t.Fatalf("landing a range outside the scope: %v", err)
	}
	if now := testGit(t, e.dir, "rev-parse", "main"); now != tip {
		t.Errorf("main moved to %s", now)
	}
}

// A landing that would make a folder where the person has an ignored file
// is refused, naming it, and the file stays as it was.
func TestLandKeepsAnIgnoredFileInTheWay(t *testing.T) {
	e := newLandEnv(t)
	p := e.work(t, "Todo", nil, map[string]string{"notes/todo.md": "- land\n"})
	gittest.WriteFile(t, filepath.Join(e.dir, ".git", "info", "exclude"), "notes\n")
	gittest.WriteFile(t, filepath.Join(e.dir, "notes"), "the person's ignored notes\n")
	e.verdict(t, p.ID, store.VerdictApprove)
	var d *store.Denial
	if _, err := e.land(p.ID); !errors.As(err, &d) || d.Code != store.CodeCheckoutInTheWay || !slices.Equal(d.Paths, []string{"notes"}) {
		t.Fatalf("landing over an ignored file: %v; want checkout_in_the_way naming notes", err)
	}
	if got := gittest.ReadFile(t, filepath.Join(e.dir, "notes")); got != "the person's ignored notes\n" {
		t.Errorf("the ignored file: %q", got)
	}
}

// A landing refused by a lock git left behind, and one cut short after
// its journal entry (a kill; a start that could not settle it), can be
// tried again at once: no "being landed already" until a restart. One cut
// short after its move is recorded, not landed twice.
func TestLandTriedAgainAfterALockOrACut(t *testing.T) {
	ctx := context.Background()
	journaled := func(e *landEnv, id string) bool {
		var ok bool
		e.f.view(t, func(tx *store.Tx) error { _, ok, _ = tx.Landing(id); return nil })
		return ok
	}

	t.Run("stale index.lock", func(t *testing.T) {
		e := newLandEnv(t)
		p := e.work(t, "A", nil, map[string]string{"a.txt": "a, by the agent\n"})
		e.verdict(t, p.ID, store.VerdictApprove)
		lock := filepath.Join(e.dir, ".git", "index.lock")
		gittest.WriteFile(t, lock, "")
		var d *store.Denial
		if _, err := e.land(p.ID); !errors.As(err, &d) || d.Code != store.CodeCheckoutInTheWay || !slices.Equal(d.Paths, []string{lock}) {
			t.Fatalf("landing with a stale index.lock: %v; want checkout_in_the_way naming it", err)
		}
		if journaled(e, p.ID) {
			t.Error("the refused landing left a journal entry")
		}
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
		if _, err := e.land(p.ID); err != nil {
			t.Fatalf("landing again once the lock is gone: %v", err)
		}
	})

	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "cut before the move", true: "cut after the move"}[moved], func(t *testing.T) {
			e := newLandEnv(t)
			p := e.work(t, "A", nil, map[string]string{"a.txt": "a, by the agent\n"})
			e.verdict(t, p.ID, store.VerdictApprove)
			// A landing killed just before (or after) git moved main:
			// its journal entry is there, the packet unrecorded.
			killed := errors.New("killed")
			var next string
			_, err := workspace.Land(ctx, e.dir, e.a.ws, workspace.LandRequest{Message: "Land",
				BeforeMove: func(old, n string) error {
					next = n
					e.f.update(t, func(tx *store.Tx) error {
						return tx.BeginLanding(store.JournaledLanding{PacketID: p.ID, RepositoryID: e.repo.ID, RepoPath: e.dir,
							BaseRef: "refs/heads/main", OldTip: old, NewCommit: n, Mode: "merge", Checkout: e.dir})
					})
					if moved {
						return nil
					}
					return killed
				}})
			if moved && err != nil || !moved && !errors.Is(err, killed) {
				t.Fatalf("the landing up to the kill: %v", err)
			}
			out, err := e.land(p.ID)
			if err != nil {
				t.Fatalf("landing again: %v", err)
			}
			if moved && out.Commit != next || !moved && out.Commit == next {
				t.Errorf("landed as %s; the cut landing's commit was %s (moved: %v)", out.Commit, next, moved)
			}
			if tip := strings.TrimSpace(testGit(t, e.dir, "rev-parse", "main")); tip != out.Commit || out.Packet.Landed == nil {
				t.Errorf("main at %s, packet landed %+v; want both at %s", tip, out.Packet.Landed, out.Commit)
			}
			if journaled(e, p.ID) {
				t.Error("the journal entry is still there")
			}
		})
	}
}
