package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// commitWS writes files (path → content) in ws and commits them with
// CommitAll, returning the new head.
func commitWS(t *testing.T, ws Workspace, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		gittest.WriteFile(t, filepath.Join(ws.Path, filepath.FromSlash(p)), c)
	}
	created, head, err := CommitAll(context.Background(), ws, Commit{Message: msg})
	if err != nil || !created {
		t.Fatalf("CommitAll = %v, %v", created, err)
	}
	return head
}

func parentsOf(t *testing.T, repo, commit string) []string {
	t.Helper()
	return strings.Fields(gitLine(t, repo, "rev-list", "--parents", "-n", "1", commit))[1:]
}

// anyConflictMarker returns a file outside .git holding a conflict
// marker, or "".
func anyConflictMarker(t *testing.T, dir string) string {
	t.Helper()
	var found string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() && strings.Contains(gittest.ReadFile(t, p), "<<<<<<<") {
			found = p
		}
		return nil
	})
	return found
}

// Two workspaces change the same line; the person has an uncommitted
// change in another file and an untracked file. The first lands as a merge
// into their checkout and keeps their work; the second conflicts and
// changes nothing; the first can then be removed with its branch.
func TestLandMergeThenConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	root := filepath.Join(t.TempDir(), "worktrees")
	ws1 := create(t, spec(repo, root))
	s2 := spec(repo, root)
	s2.SessionID = "ses_9b8c7d6e5f4a3b2c1d0e"
	ws2 := create(t, s2)
	tip1 := commitWS(t, ws1, "first agent", map[string]string{"a.txt": "one\ntwo, said the first\nthree\n"})
	commitWS(t, ws2, "second agent", map[string]string{"a.txt": "one\ntwo, said the second\nthree\n"})
	gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, edited by the person\n")
	gittest.WriteFile(t, filepath.Join(repo, "notes.txt"), "the person's notes\n")
	old := gitLine(t, repo, "rev-parse", "main")

	l, err := Land(ctx, repo, ws1, LandRequest{Message: "Land the first"})
	if err != nil {
		t.Fatal(err)
	}
	if tip := gitLine(t, repo, "rev-parse", "main"); l.Commit != tip || l.Mode != Merge || l.Files != 1 {
		t.Errorf("Land = %+v; main is at %s, want it there, mode merge, 1 file", l, tip)
	}
	if got, want := parentsOf(t, repo, l.Commit), []string{old, tip1}; !reflect.DeepEqual(got, want) {
		t.Errorf("parents = %q, want %q", got, want)
	}
	if msg := gitLine(t, repo, "log", "-1", "--format=%B", l.Commit); msg != "Land the first" {
		t.Errorf("message = %q", msg)
	}
	for path, want := range map[string]string{
		"a.txt":     "one\ntwo, said the first\nthree\n",
		"src/b.txt": "bee, edited by the person\n",
		"notes.txt": "the person's notes\n",
	} {
		if got := gittest.ReadFile(t, filepath.Join(repo, path)); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if st := git(t, repo, "status", "--porcelain=v1", "--untracked-files=all"); st != " M src/b.txt\n?? notes.txt\n" {
		t.Errorf("status after landing:\n%s", st)
	}

	before := checkout(t, repo)
	tip := gitLine(t, repo, "rev-parse", "main")
	_, err = Land(ctx, repo, ws2, LandRequest{Message: "Land the second"})
	var ce *ConflictError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || !reflect.DeepEqual(ce.Files, []string{"a.txt"}) {
		t.Fatalf("second Land: %v; want a ConflictError naming a.txt", err)
	}
	if now := gitLine(t, repo, "rev-parse", "main"); now != tip {
		t.Errorf("main moved to %s on a conflict", now)
	}
	if after := checkout(t, repo); after != before {
		t.Errorf("the conflict changed the checkout:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if f := anyConflictMarker(t, repo); f != "" {
		t.Errorf("conflict markers in %s", f)
	}
	if p := filepath.Join(repo, ".git", "MERGE_HEAD"); exists(p) {
		t.Errorf("MERGE_HEAD at %s", p)
	}

	if st, err := Status(ctx, ws1); err != nil || !st.Landed {
		t.Fatalf("Status after a merge landing = %+v, %v; want Landed", st, err)
	}
	if err := Remove(ctx, ws1, false); err != nil {
		t.Fatal(err)
	}
	if exists(ws1.Path) || branchExists(t, repo, ws1.Branch) {
		t.Error("worktree or branch still there after Remove")
	}
}

// A squash is one commit on the base's tip holding the range's changes.
func TestLandSquash(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		fromFirst bool // squash from the first commit rather than BaseCommit
		want      string
	}{
		{name: "whole branch", want: "A\tc.txt\nM\tsrc/b.txt\n"},
		{name: "from a commit", fromFirst: true, want: "M\tsrc/b.txt\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			first := commitWS(t, ws, "add c", map[string]string{"c.txt": "sea\n"})
			commitWS(t, ws, "edit b", map[string]string{"src/b.txt": "bee, by the agent\n"})
			// The base moved on meanwhile, elsewhere in the tree.
			gittest.WriteFile(t, filepath.Join(repo, "d.txt"), "dee\n")
			git(t, repo, "add", "d.txt")
			git(t, repo, "commit", "-q", "-m", "person's commit")
			old := gitLine(t, repo, "rev-parse", "main")
			req := LandRequest{Mode: Squash, Message: "Squashed"}
			if tt.fromFirst {
				req.From = first
			}

			l, err := Land(ctx, repo, ws, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := parentsOf(t, repo, l.Commit); !reflect.DeepEqual(got, []string{old}) {
				t.Errorf("parents = %q, want only %s", got, old)
			}
			if tip := gitLine(t, repo, "rev-parse", "main"); tip != l.Commit || l.Mode != Squash {
				t.Errorf("Land = %+v, main at %s", l, tip)
			}
			if got := git(t, repo, "diff", "--name-status", old, l.Commit); got != tt.want {
				t.Errorf("squash changes:\n%s\nwant:\n%s", got, tt.want)
			}
			if l.Files != strings.Count(tt.want, "\n") {
				t.Errorf("Files = %d", l.Files)
			}
			if st, err := Status(ctx, ws); err != nil || st.Landed {
				t.Errorf("Status after a squash = %+v, %v; want not Landed", st, err)
			}
		})
	}
}

// With the base checked out nowhere, the ref moves and no work tree is
// touched.
func TestLandBaseNotCheckedOut(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	tip := commitWS(t, ws, "agent", map[string]string{"a.txt": "one\ntwo, by the agent\nthree\n", "c.txt": "sea\n"})
	git(t, repo, "switch", "-q", "-c", "person")
	personWorks(t, repo)
	old := gitLine(t, repo, "rev-parse", "main")
	before := checkout(t, repo)

	l, err := Land(context.Background(), repo, ws, LandRequest{Message: "Land"})
	if err != nil {
		t.Fatal(err)
	}
	if got := parentsOf(t, repo, gitLine(t, repo, "rev-parse", "main")); !reflect.DeepEqual(got, []string{old, tip}) || l.Files != 2 {
		t.Errorf("main's parents = %q, Files = %d; want %s %s, 2", got, l.Files, old, tip)
	}
	if after := checkout(t, repo); after != before {
		t.Errorf("the person's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// What stands in the way in the person's checkout refuses the landing and
// stays as it was.
func TestLandRefusesWhatIsInTheWay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		agent  map[string]string
		person func(t *testing.T, repo string)
		files  []string
		reason string
	}{
		{
			name:  "uncommitted change to the same file",
			agent: map[string]string{"a.txt": "one\ntwo, by the agent\nthree\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree, by the person\n")
			},
			files: []string{"a.txt"},
		},
		{
			name:  "staged change to the same file",
			agent: map[string]string{"src/b.txt": "bee, by the agent\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, staged\n")
				git(t, repo, "add", "src/b.txt")
			},
			files: []string{"src/b.txt"},
		},
		{
			name:  "untracked file where the packet adds one",
			agent: map[string]string{"c.txt": "sea, by the agent\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, "c.txt"), "the person's own c\n")
			},
			files: []string{"c.txt"},
		},
		{
			name:  "ignored file where the packet adds one",
			agent: map[string]string{"c.txt": "sea, by the agent\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, ".git", "info", "exclude"), "c.txt\n")
				gittest.WriteFile(t, filepath.Join(repo, "c.txt"), "the person's ignored c\n")
			},
			files: []string{"c.txt"},
		},
		{
			// git would remove the ignored file to make the folder.
			name:  "ignored file where the packet makes a folder",
			agent: map[string]string{"notes/todo.md": "the agent's list\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, ".git", "info", "exclude"), "notes\n")
				gittest.WriteFile(t, filepath.Join(repo, "notes"), "the person's ignored notes\n")
			},
			files: []string{"notes"},
		},
		{
			name:  "untracked file where the packet makes a folder deeper down",
			agent: map[string]string{"src/x/y/z.txt": "zed\n"},
			person: func(t *testing.T, repo string) {
				gittest.WriteFile(t, filepath.Join(repo, "src", "x"), "the person's x\n")
			},
			files: []string{"src/x"},
		},
		{
			name:   "merge in progress",
			agent:  map[string]string{"c.txt": "sea\n"},
			person: mergeInProgress,
			reason: "a merge is in progress",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			commitWS(t, ws, "agent", tt.agent)
			tt.person(t, repo)
			tip := gitLine(t, repo, "rev-parse", "main")
			before := checkout(t, repo)
			mergeHead := filepath.Join(repo, ".git", "MERGE_HEAD")
			var mergeHeadBefore string
			if exists(mergeHead) {
				mergeHeadBefore = gittest.ReadFile(t, mergeHead)
			}

			_, err := Land(ctx, repo, ws, LandRequest{Message: "Land"})
			var de *DirtyError
			if !errors.Is(err, ErrCheckoutInTheWay) || !errors.As(err, &de) {
				t.Fatalf("Land: %v; want a DirtyError", err)
			}
			if !reflect.DeepEqual(de.Files, tt.files) || !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("DirtyError = %+v; want files %q, reason with %q", de, tt.files, tt.reason)
			}
			if now := gitLine(t, repo, "rev-parse", "main"); now != tip {
				t.Errorf("main moved to %s", now)
			}
			if after := checkout(t, repo); after != before {
				t.Errorf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if mergeHeadBefore != "" && (!exists(mergeHead) || gittest.ReadFile(t, mergeHead) != mergeHeadBefore) {
				t.Error("MERGE_HEAD gone or changed")
			}
		})
	}
}

// mergeInProgress leaves the person's checkout of main in a merge stopped
// on a conflict in src/b.txt.
func mergeInProgress(t *testing.T, repo string) {
	t.Helper()
	git(t, repo, "branch", "side")
	gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee on main\n")
	git(t, repo, "commit", "-q", "-am", "main's b")
	git(t, repo, "switch", "-q", "side")
	gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee on side\n")
	git(t, repo, "commit", "-q", "-am", "side's b")
	git(t, repo, "switch", "-q", "main")
	if _, err := gitcmd.Run(context.Background(), repo, "merge", "-q", "side"); err == nil {
		t.Fatal("merge succeeded; the test wants a conflict")
	}
}

// A base that moved since Land read it is refused, whether it is checked
// out or not, and stays where it is.
func TestMoveBaseRefusesAMovedBase(t *testing.T) {
	t.Parallel()
	for _, checkedOut := range []bool{true, false} {
		t.Run(map[bool]string{true: "checked out", false: "not checked out"}[checkedOut], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			stale := gitLine(t, repo, "rev-parse", "main")
			next := gitLine(t, repo, "commit-tree", "-p", stale, "-m", "landing", stale+"^{tree}")
			gittest.WriteFile(t, filepath.Join(repo, "c.txt"), "sea\n")
			git(t, repo, "add", "c.txt")
			git(t, repo, "commit", "-q", "-m", "the person moved main")
			if !checkedOut {
				git(t, repo, "switch", "-q", "-c", "person")
			}
			moved := gitLine(t, repo, "rev-parse", "main")
			before := checkout(t, repo)

			err := moveBase(ctx, repo, "main", stale, next, nil, nil)
			if !errors.Is(err, ErrBaseMoved) {
				t.Fatalf("moveBase: %v; want ErrBaseMoved", err)
			}
			if now := gitLine(t, repo, "rev-parse", "main"); now != moved {
				t.Errorf("main moved to %s", now)
			}
			if after := checkout(t, repo); after != before {
				t.Errorf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestLandRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, repo string, ws Workspace)
		req   LandRequest
		want  error
	}{
		{name: "nothing to land", req: LandRequest{Message: "m"}, want: ErrNothingToLand},
		{name: "nothing to squash", req: LandRequest{Mode: Squash, Message: "m"}, want: ErrNothingToLand},
		{
			name: "no identity",
			setup: func(t *testing.T, repo string, ws Workspace) {
				commitWS(t, ws, "agent", map[string]string{"c.txt": "sea\n"})
				git(t, repo, "config", "--unset", "user.email")
			},
			req:  LandRequest{Message: "m"},
			want: ErrNoIdentity,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			if tt.setup != nil {
				tt.setup(t, repo, ws)
			}
			tip := gitLine(t, repo, "rev-parse", "main")
			if _, err := Land(context.Background(), repo, ws, tt.req); !errors.Is(err, tt.want) {
				t.Errorf("Land: %v; want %v", err, tt.want)
			}
			if now := gitLine(t, repo, "rev-parse", "main"); now != tip {
				t.Errorf("main moved to %s", now)
			}
		})
	}
}

func TestParseMergeTree(t *testing.T) {
	t.Parallel()
	tree, files := parseMergeTree([]byte("abc\x00a.txt\x00src/b c.txt\x00a.txt\x00"))
	if tree != "abc" || !reflect.DeepEqual(files, []string{"a.txt", "src/b c.txt"}) {
		t.Errorf("parseMergeTree = %q, %q", tree, files)
	}
	if tree, files := parseMergeTree([]byte("abc\x00")); tree != "abc" || files != nil {
		t.Errorf("clean: %q, %q", tree, files)
	}
}

// Landing up to a commit of the branch lands that commit and what led to
// it, not what the session did after (a later packet's commits).
func TestLandUpTo(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	first := commitWS(t, ws, "first packet", map[string]string{"c.txt": "sea\n"})
	later := commitWS(t, ws, "second packet", map[string]string{"d.txt": "dee\n"})
	git(t, repo, "switch", "-q", "-c", "person")
	old := gitLine(t, repo, "rev-parse", "main")
	if _, err := Land(context.Background(), repo, ws, LandRequest{Message: "Land the first", To: first}); err != nil {
		t.Fatal(err)
	}
	tip := gitLine(t, repo, "rev-parse", "main")
	if got := parentsOf(t, repo, tip); !reflect.DeepEqual(got, []string{old, first}) {
		t.Errorf("main's parents %q, want %s %s", got, old, first)
	}
	if files := git(t, repo, "ls-tree", "--name-only", "main"); !strings.Contains(files, "c.txt") || strings.Contains(files, "d.txt") {
		t.Errorf("main holds %q: want c.txt and not d.txt", files)
	}
	for _, bad := range []string{"--output=x", "main", old[:12], strings.Repeat("0", 40)} {
		if _, err := Land(context.Background(), repo, ws, LandRequest{Message: "x", To: bad}); err == nil {
			t.Errorf("landing up to %q: no error", bad)
		}
	}
	if _, err := Land(context.Background(), repo, ws, LandRequest{Message: "Land the rest", To: later}); err != nil {
		t.Errorf("landing the rest: %v", err)
	}
}
