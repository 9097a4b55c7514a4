package workspace

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// A branch of three commits (one.txt added; src/b.txt renamed; a.txt
// changed), main moved on under it by the person. The plan of the last
// two (a packet's range) lists those two commits and their files; the
// plan of a merge lists all three and every file since the branch left
// main; nothing moves; once main holds the commits, the plan lists none.
func TestLandPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	git(t, repo, "switch", "-q", "-c", "work")
	commit := func(msg string, change func()) string {
		t.Helper()
		change()
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", msg)
		return gitLine(t, repo, "rev-parse", "HEAD")
	}
	c1 := commit("Add one", func() { gittest.WriteFile(t, filepath.Join(repo, "one.txt"), "1\n") })
	c2 := commit("Rename b", func() { git(t, repo, "mv", "src/b.txt", "src/c.txt") })
	c3 := commit("Edit a", func() { gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree\nfour\n") })
	git(t, repo, "switch", "-q", "main")
	commit("The person's", func() { gittest.WriteFile(t, filepath.Join(repo, "mine.txt"), "mine\n") })
	tip := gitLine(t, repo, "rev-parse", "main")
	before := checkout(t, repo)

	for _, tt := range []struct {
		name    string
		from    string
		commits []PlanCommit
		files   []PlanFile
	}{
		{"a packet's range", c1,
			[]PlanCommit{{c2, "Rename b"}, {c3, "Edit a"}},
			[]PlanFile{{Status: "M", Path: "a.txt"}, {Status: "R", Path: "src/c.txt", OldPath: "src/b.txt"}}},
		{"a merge", "",
			[]PlanCommit{{c1, "Add one"}, {c2, "Rename b"}, {c3, "Edit a"}},
			[]PlanFile{{Status: "M", Path: "a.txt"}, {Status: "A", Path: "one.txt"}, {Status: "R", Path: "src/c.txt", OldPath: "src/b.txt"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LandPlan(ctx, repo, PlanRequest{Target: "main", From: tt.from, To: c3})
			if err != nil {
				t.Fatal(err)
			}
			want := Plan{Target: "main", TargetCommit: tip, Commits: tt.commits, Files: tt.files}
			if !reflect.DeepEqual(p, want) {
				t.Errorf("plan:\n got %+v\nwant %+v", p, want)
			}
		})
	}
	if after := checkout(t, repo); after != before || gitLine(t, repo, "rev-parse", "main") != tip {
		t.Errorf("a plan changed the checkout or main:\n%s\n---\n%s", before, after)
	}

	git(t, repo, "merge", "-q", "--no-edit", "work")
	p, err := LandPlan(ctx, repo, PlanRequest{Target: "main", From: c1, To: c3})
	if err != nil || len(p.Commits) != 0 || p.MoreCommits != 0 {
		t.Errorf("a plan of what main holds: %+v, %v", p, err)
	}

	for _, bad := range []PlanRequest{
		{Target: "main", From: "HEAD~1", To: c3},
		{Target: "main", From: c1, To: "--output=x"},
		{Target: "nope", From: c1, To: c3},
		{Target: "-main", To: c3},
		{Target: "main"},
	} {
		if _, err := LandPlan(ctx, repo, bad); err == nil {
			t.Errorf("LandPlan(%+v) made a plan", bad)
		}
	}
}

// A plan keeps at most its limit of files and counts the rest; renames
// and copies take two paths, the old first.
func TestParseNameStatus(t *testing.T) {
	recs := []string{"M", "a.go", "R087", "old.go", "new.go", "C100", "x.go", "y.go", "D", "gone.go", "A", "new.txt"}
	files, more := parseNameStatus(recs, 3)
	want := []PlanFile{{Status: "M", Path: "a.go"}, {Status: "R", Path: "new.go", OldPath: "old.go"}, {Status: "C", Path: "y.go", OldPath: "x.go"}}
	if !reflect.DeepEqual(files, want) || more != 2 {
		t.Errorf("parseNameStatus = %+v, %d more", files, more)
	}
}
