package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// packetRange is one packet's commits on a session's branch: From..To.
type packetRange struct{ from, to string }

// threePackets has ws work three packets in turn, each a commit of its
// own: a.txt, src/b.txt, then a new c.txt. It returns their ranges and
// what each makes of its file.
func threePackets(t *testing.T, ws Workspace) ([3]packetRange, [3]string, [3]string) {
	t.Helper()
	paths := [3]string{"a.txt", "src/b.txt", "c.txt"}
	texts := [3]string{"one\ntwo, by packet 0\nthree\n", "bee, by packet 1\n", "sea, by packet 2\n"}
	var rs [3]packetRange
	from := ws.BaseCommit
	for i := range paths {
		to := commitWS(t, ws, fmt.Sprintf("packet %d", i), map[string]string{paths[i]: texts[i]})
		rs[i] = packetRange{from, to}
		from = to
	}
	return rs, paths, texts
}

// One session's three packets, landed in every order and every mode, each
// bring their own file and nothing of another: the base holds, after each
// landing, exactly the landed packets' changes, and no commit of a packet
// not landed yet is in its history.
func TestLandOnlyThePacketsRange(t *testing.T) {
	t.Parallel()
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		for _, order := range orders {
			t.Run(fmt.Sprintf("%s %v", mode, order), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				repo := newRepo(t, "")
				ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
				rs, paths, texts := threePackets(t, ws)
				landed := map[int]bool{}
				for _, i := range order {
					l, err := Land(ctx, repo, ws, LandRequest{Mode: mode, Message: fmt.Sprintf("Land packet %d", i), From: rs[i].from, To: rs[i].to})
					if err != nil {
						t.Fatalf("landing packet %d: %v", i, err)
					}
					landed[i] = true
					if l.Files != 1 {
						t.Errorf("packet %d landed %d files, want 1", i, l.Files)
					}
					for j := range paths {
						got, err := showFile(repo, "main", paths[j])
						if landed[j] && got != texts[j] || !landed[j] && got == texts[j] {
							t.Errorf("after packet %d: main's %s = %q, %v (packet %d landed: %v)", i, paths[j], got, err, j, landed[j])
						}
						// The packet's own commit (or its replayed copy,
						// which keeps its message) is in main's history
						// only once it landed.
						inLog := strings.Contains(git(t, repo, "log", "--format=%s", "main"), fmt.Sprintf("packet %d", j))
						if inLog != landed[j] {
							t.Errorf("after packet %d: packet %d's commit in main's history: %v, landed: %v", i, j, inLog, landed[j])
						}
					}
				}
			})
		}
	}
}

// showFile is path's content at rev.
func showFile(repo, rev, path string) (string, error) {
	out, err := gitcmd.Run(context.Background(), repo, "show", rev+":"+path)
	return string(out), err
}

// A packet whose commits change lines an earlier packet of the session
// wrote, which has not landed, cannot stand alone: the landing is refused
// with the commits below named, in every mode, and lands once the earlier
// one has. A conflict with the base itself stays a conflict.
func TestLandRefusesARangeThatDependsOnAnother(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			first := commitWS(t, ws, "first", map[string]string{"a.txt": "one\ntwo, by the first\nthree\n"})
			second := commitWS(t, ws, "second", map[string]string{"a.txt": "one\ntwo, by the first, fixed by the second\nthree\n"})
			tip := gitLine(t, repo, "rev-parse", "main")
			before := checkout(t, repo)

			_, err := Land(ctx, repo, ws, LandRequest{Mode: mode, Message: "second", From: first, To: second})
			var de *DependsError
			if !errors.Is(err, ErrDepends) || !errors.As(err, &de) {
				t.Fatalf("landing the second alone: %v; want a DependsError", err)
			}
			if !reflect.DeepEqual(de.Files, []string{"a.txt"}) || !reflect.DeepEqual(de.Below, []string{first}) {
				t.Errorf("DependsError = %+v; want a.txt, below it %s", de, first)
			}
			if now := gitLine(t, repo, "rev-parse", "main"); now != tip || checkout(t, repo) != before {
				t.Fatalf("a refused landing moved main to %s or changed the checkout", now)
			}
			// Both land, the first first.
			if _, err := Land(ctx, repo, ws, LandRequest{Mode: mode, Message: "first", From: ws.BaseCommit, To: first}); err != nil {
				t.Fatal(err)
			}
			if _, err := Land(ctx, repo, ws, LandRequest{Mode: mode, Message: "second", From: first, To: second}); err != nil {
				t.Fatalf("the second after the first: %v", err)
			}
			if got := gittest.ReadFile(t, filepath.Join(repo, "a.txt")); got != "one\ntwo, by the first, fixed by the second\nthree\n" {
				t.Errorf("a.txt = %q", got)
			}
		})
	}

	// The base changed the same line: the whole branch conflicts too, and
	// the refusal is a conflict, not a dependency.
	t.Run("conflict with the base", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t, "")
		ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
		first := commitWS(t, ws, "first", map[string]string{"a.txt": "one\ntwo, by the first\nthree\n"})
		second := commitWS(t, ws, "second", map[string]string{"a.txt": "one\ntwo, by the second\nthree\n"})
		gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo, by the person\nthree\n")
		git(t, repo, "commit", "-q", "-am", "person")
		_, err := Land(context.Background(), repo, ws, LandRequest{Message: "second", From: first, To: second})
		if !errors.Is(err, ErrConflict) || errors.Is(err, ErrDepends) {
			t.Errorf("landing against the base's own change: %v; want a conflict", err)
		}
	})
}

// Check sees the paths the landing changes on the base, and a refusal
// there moves nothing and records nothing (BeforeMove is not called).
func TestLandCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	commitWS(t, ws, "agent", map[string]string{"c.txt": "sea\n", "src/b.txt": "bee, by the agent\n"})
	git(t, ws.Path, "mv", "a.txt", "moved.txt")
	git(t, ws.Path, "commit", "-q", "-m", "move")
	tip := gitLine(t, repo, "rev-parse", "main")
	out := errors.New("outside the scope")
	var seen []string
	_, err := Land(ctx, repo, ws, LandRequest{Message: "Land",
		Check:      func(paths []string) error { seen = paths; return out },
		BeforeMove: func(string, string) error { t.Error("BeforeMove called after a refused check"); return nil },
	})
	if !errors.Is(err, out) {
		t.Fatalf("Land with a refusing check: %v", err)
	}
	slices.Sort(seen)
	if want := []string{"a.txt", "c.txt", "moved.txt", "src/b.txt"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("Check saw %q, want %q", seen, want)
	}
	if now := gitLine(t, repo, "rev-parse", "main"); now != tip {
		t.Errorf("main moved to %s", now)
	}
}

// A lock git left (a git killed half way) on the checkout's index or on the
// base branch refuses the landing before anything is recorded or moved,
// names the lock, and leaves it; with it gone the landing goes through.
func TestLandRefusesAHeldLock(t *testing.T) {
	t.Parallel()
	for _, checkedOut := range []bool{true, false} {
		t.Run(map[bool]string{true: "index.lock", false: "ref lock"}[checkedOut], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			commitWS(t, ws, "agent", map[string]string{"c.txt": "sea\n"})
			lock := filepath.Join(repo, ".git", "refs", "heads", "main.lock")
			if checkedOut {
				lock = filepath.Join(repo, ".git", "index.lock")
			} else {
				git(t, repo, "switch", "-q", "-c", "person")
			}
			gittest.WriteFile(t, lock, "")
			tip := gitLine(t, repo, "rev-parse", "main")
			req := LandRequest{Message: "Land", BeforeMove: func(string, string) error {
				t.Error("BeforeMove called with a lock held")
				return nil
			}}
			_, err := Land(ctx, repo, ws, req)
			var de *DirtyError
			if !errors.As(err, &de) || !reflect.DeepEqual(de.Files, []string{lock}) || !strings.Contains(de.Reason, "lock") {
				t.Fatalf("Land with %s held: %v; want a DirtyError naming it", lock, err)
			}
			if now := gitLine(t, repo, "rev-parse", "main"); now != tip || !exists(lock) {
				t.Fatalf("main moved to %s, or the lock went", now)
			}
			if err := os.Remove(lock); err != nil {
				t.Fatal(err)
			}
			req.BeforeMove = nil
			if _, err := Land(ctx, repo, ws, req); err != nil {
				t.Errorf("Land once the lock is gone: %v", err)
			}
		})
	}
}
