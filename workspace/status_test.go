package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, "old name.txt"), "rename me\n")
	gittest.WriteFile(t, filepath.Join(repo, "gone.txt"), "delete me\n")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "more")
	ws := create(t, spec(repo, t.TempDir()))

	st, err := Status(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirty || len(st.Changed) != 0 || st.Ahead != 0 || st.Unlanded != 0 || !st.Landed || st.Branch != ws.Branch || st.Head != ws.BaseCommit {
		t.Errorf("fresh worktree: %+v", st)
	}

	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "changed\n")                           // modified, not staged
	gittest.WriteFile(t, filepath.Join(ws.Path, "src", "b.txt"), "staged\n")                     // modified, staged
	gittest.WriteFile(t, filepath.Join(ws.Path, "deep", "er", "ünïcode new.txt"), "untracked\n") // untracked in new folders
	gittest.WriteFile(t, filepath.Join(ws.Path, "line\nbreak.txt"), "x\n")                       // a name -z keeps whole
	git(t, ws.Path, "add", "src/b.txt")
	git(t, ws.Path, "mv", "old name.txt", "new name.txt")
	if err := os.Remove(filepath.Join(ws.Path, "gone.txt")); err != nil {
		t.Fatal(err)
	}

	st, err = Status(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Path: "a.txt", Status: "M", XY: ".M"},
		{Path: "gone.txt", Status: "D", XY: ".D"},
		{Path: "new name.txt", Status: "R", XY: "R.", OldPath: "old name.txt"},
		{Path: "src/b.txt", Status: "M", XY: "M."},
		{Path: "deep/er/ünïcode new.txt", Status: "?", XY: "??"},
		{Path: "line\nbreak.txt", Status: "?", XY: "??"},
	}
	if !st.Dirty || !reflect.DeepEqual(st.Changed, want) {
		t.Errorf("Changed =\n%+v\nwant\n%+v", st.Changed, want)
	}

	git(t, ws.Path, "add", "-A")
	git(t, ws.Path, "commit", "-q", "-m", "one")
	git(t, ws.Path, "commit", "-q", "--allow-empty", "-m", "two")
	st, err = Status(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirty || st.Ahead != 2 || st.Unlanded != 2 || st.Landed {
		t.Errorf("two commits: %+v", st)
	}

	// The person lands one of the two commits.
	git(t, repo, "merge", "-q", "--ff-only", ws.Branch+"~1")
	st, _ = Status(ctx, ws)
	if st.Ahead != 2 || st.Unlanded != 1 || st.Landed {
		t.Errorf("one landed: %+v", st)
	}
	git(t, repo, "merge", "-q", "--ff-only", ws.Branch)
	st, _ = Status(ctx, ws)
	if st.Ahead != 2 || st.Unlanded != 0 || !st.Landed {
		t.Errorf("both landed: %+v", st)
	}

	// The agent leaves its branch for another one: commits only the
	// workspace's branch has still count.
	git(t, ws.Path, "commit", "-q", "--allow-empty", "-m", "three")
	git(t, ws.Path, "switch", "-q", "-c", "elsewhere", "main")
	st, _ = Status(ctx, ws)
	if st.Branch != "elsewhere" || st.Unlanded != 1 || st.Landed {
		t.Errorf("switched away: %+v", st)
	}
}

func TestStatusUnmerged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	conflict(t, repo, ws)
	st, err := Status(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Changed) != 1 || st.Changed[0] != (FileChange{Path: "a.txt", Status: "U", XY: "UU"}) {
		t.Errorf("Changed = %+v", st.Changed)
	}
}

func TestStatusNeedsAWholeWorkspace(t *testing.T) {
	t.Parallel()
	ws := Workspace{Path: "wt", Branch: "b", BaseBranch: "main", BaseCommit: "abc"}
	for _, bad := range []Workspace{{}, ws, {Path: "/wt", Branch: "-b", BaseBranch: "main", BaseCommit: "abc"}} {
		if _, err := Status(context.Background(), bad); err == nil {
			t.Errorf("Status(%+v) accepted it", bad)
		}
	}
}

func TestParseStatusRejectsGarbage(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"1 M. short\x00", "2 R. N... 100644 100644 100644 a b R100 new\x00", "x what\x00"} {
		if _, err := parseStatus([]byte(in)); err == nil {
			t.Errorf("parseStatus(%q) accepted it", in)
		}
	}
}
