package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// commitOn commits files on branch (a content of "" deletes the file) and
// returns the commit. A new branch starts at start; the person's checkout
// is back on main afterwards.
func commitOn(t testing.TB, repo, branch, start string, files map[string]string) string {
	t.Helper()
	if start != "" {
		gitTB(t, repo, "checkout", "-q", "-b", branch, start)
	} else {
		gitTB(t, repo, "checkout", "-q", branch)
	}
	for name, content := range files {
		p := filepath.Join(repo, name)
		if content == "" {
			gitTB(t, repo, "rm", "-q", "--", name)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		gittest.WriteFile(t, p, content)
	}
	gitTB(t, repo, "add", "-A")
	gitTB(t, repo, "commit", "-q", "-m", "on "+branch)
	id := strings.TrimSpace(gitTB(t, repo, "rev-parse", "HEAD"))
	gitTB(t, repo, "checkout", "-q", "main")
	return id
}

// gitTB is git for a test or a benchmark.
func gitTB(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := gitcmd.Run(context.Background(), dir, args...)
	if err != nil {
		tb.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func TestConflicts(t *testing.T) {
	tests := []struct {
		name string
		// main and packet are what each side commits on the first commit:
		// a.txt is "one\ntwo\nthree\n", src/b.txt "bee\n". under, when
		// set, is an unlanded packet the packet's commit sits on.
		main, under, packet map[string]string
		// fromUnder merges only the packet's own commit (From is under's).
		fromUnder bool
		wantFiles []string
		// wantHunk is in the first file's first hunk; wantMessage in its
		// messages.
		wantHunk, wantMessage string
	}{
		{name: "clean: different files",
			main:   map[string]string{"a.txt": "one\nTWO\nthree\n"},
			packet: map[string]string{"src/b.txt": "bee, edited\n"}},
		{name: "clean: different lines of one file",
			main:   map[string]string{"a.txt": "ONE\ntwo\nthree\n"},
			packet: map[string]string{"a.txt": "one\ntwo\nthree\nfour\n"}},
		{name: "content conflict",
			main:      map[string]string{"a.txt": "one\nmain's two\nthree\n"},
			packet:    map[string]string{"a.txt": "one\nagent's two\nthree\n"},
			wantFiles: []string{"a.txt"},
			wantHunk:  "one\n<<<<<<< main\nmain's two\n=======\nagent's two\n>>>>>>> packet\nthree\n", wantMessage: "Merge conflict in a.txt"},
		{name: "modify/delete",
			main:      map[string]string{"src/b.txt": ""},
			packet:    map[string]string{"src/b.txt": "bee, edited\n"},
			wantFiles: []string{"src/b.txt"}, wantMessage: "src/b.txt deleted in main and modified in packet"},
		{name: "add/add",
			main:      map[string]string{"c.txt": "main's c\n"},
			packet:    map[string]string{"c.txt": "agent's c\n"},
			wantFiles: []string{"c.txt"}, wantHunk: "<<<<<<< main\nmain's c\n=======\nagent's c\n>>>>>>> packet\n"},
		{name: "two files",
			main:      map[string]string{"a.txt": "main\n", "src/b.txt": "main\n"},
			packet:    map[string]string{"a.txt": "agent\n", "src/b.txt": "agent\n"},
			wantFiles: []string{"a.txt", "src/b.txt"}},
		{name: "on an unlanded packet that conflicts, merged whole",
			main:      map[string]string{"a.txt": "one\nmain's two\nthree\n"},
			under:     map[string]string{"a.txt": "one\nunder's two\nthree\n"},
			packet:    map[string]string{"src/b.txt": "bee, edited\n"},
			wantFiles: []string{"a.txt"}},
		{name: "on an unlanded packet that conflicts, its own range alone",
			main:      map[string]string{"a.txt": "one\nmain's two\nthree\n"},
			under:     map[string]string{"a.txt": "one\nunder's two\nthree\n"},
			packet:    map[string]string{"src/b.txt": "bee, edited\n"},
			fromUnder: true},
		{name: "its own range conflicts on top of another packet",
			main:      map[string]string{"src/b.txt": "main's bee\n"},
			under:     map[string]string{"a.txt": "one\nunder's two\nthree\n"},
			packet:    map[string]string{"src/b.txt": "agent's bee\n"},
			fromUnder: true,
			wantFiles: []string{"src/b.txt"}, wantHunk: "<<<<<<< main\nmain's bee\n=======\nagent's bee\n>>>>>>> packet\n"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, "")
			first := gitLine(t, repo, "rev-parse", "HEAD")
			start, from := first, ""
			if tc.under != nil {
				start = commitOn(t, repo, "under", first, tc.under)
				if tc.fromUnder {
					from = start
				}
			}
			head := commitOn(t, repo, "packet", start, tc.packet)
			target := commitOn(t, repo, "main", "", tc.main)
			before := checkout(t, repo) + git(t, repo, "for-each-ref")

			m := MergeCheck{Target: target, Head: head, From: from}
			got, err := NewChecker(repo).Check(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if got.Target != target || got.Head != head || !slices.Equal(got.Files, tc.wantFiles) || got.Clean() != (len(tc.wantFiles) == 0) {
				t.Fatalf("Check = %+v, want files %q on %s", got, tc.wantFiles, target)
			}
			files, err := ConflictHunks(ctx, repo, m, ConflictLabels{Target: "main", Head: "packet"})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
			}
			if !slices.Equal(paths, tc.wantFiles) {
				t.Fatalf("ConflictHunks named %q, want %q", paths, tc.wantFiles)
			}
			if tc.wantHunk != "" && (len(files[0].Hunks) == 0 || !strings.Contains(files[0].Hunks[0].Text, tc.wantHunk)) {
				t.Errorf("hunks of %s = %+v, want one with %q", files[0].Path, files[0].Hunks, tc.wantHunk)
			}
			if tc.wantMessage != "" && !strings.Contains(strings.Join(files[0].Messages, "\n"), tc.wantMessage) {
				t.Errorf("messages of %s = %q, want %q", files[0].Path, files[0].Messages, tc.wantMessage)
			}
			for _, f := range files {
				for _, h := range f.Hunks {
					if strings.Contains(h.Text, head) || strings.Contains(h.Text, target) {
						t.Errorf("a hunk names a commit id rather than its label:\n%s", h.Text)
					}
				}
			}
			if after := checkout(t, repo) + git(t, repo, "for-each-ref"); after != before {
				t.Errorf("the check changed the repository:\nbefore\n%s\nafter\n%s", before, after)
			}
		})
	}
}

func TestConflictsRefusesWhatIsNotACommitID(t *testing.T) {
	repo := newRepo(t, "")
	head := gitLine(t, repo, "rev-parse", "HEAD")
	for _, m := range []MergeCheck{
		{Target: "main", Head: head},
		{Target: head, Head: "--output=x"},
		{Target: head, Head: head, From: "HEAD~1"},
		{Target: "", Head: head},
	} {
		if _, err := NewChecker(repo).Check(context.Background(), m); err == nil {
			t.Errorf("Check(%+v) succeeded", m)
		}
	}
}

func TestMarkedHunks(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, "l"+strings.Repeat("x", i%3))
	}
	mark := func(at int, lines []string) []string {
		region := []string{"<<<<<<< ours", "o", "=======", "t", ">>>>>>> theirs"}
		return slices.Concat(lines[:at], region, lines[at:])
	}
	two := mark(20, mark(2, lines))                // far apart: two hunks
	near := mark(14, mark(6, slices.Clone(lines))) // context meets: one
	tests := []struct {
		name   string
		text   string
		starts []int
	}{
		{"none", strings.Join(lines, "\n") + "\n", nil},
		{"two apart", strings.Join(two, "\n") + "\n", []int{1, 18}},
		{"two that meet", strings.Join(near, "\n") + "\n", []int{4}},
		{"no final line feed", strings.Join(two, "\n"), []int{1, 18}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := markedHunks(tc.text, strings.NewReplacer("ours", "main"))
			var starts []int
			for _, h := range hs {
				starts = append(starts, h.Line)
				if !strings.HasSuffix(h.Text, "\n") || !strings.Contains(h.Text, "<<<<<<< main\n") {
					t.Errorf("hunk at %d:\n%s", h.Line, h.Text)
				}
			}
			if !slices.Equal(starts, tc.starts) {
				t.Errorf("hunks start at %v, want %v", starts, tc.starts)
			}
		})
	}
}

func TestBranchTips(t *testing.T) {
	repo := newRepo(t, "")
	main := gitLine(t, repo, "rev-parse", "HEAD")
	feat := commitOn(t, repo, "feat", main, map[string]string{"c.txt": "c\n"})
	commitOn(t, repo, "feat-x", main, map[string]string{"d.txt": "d\n"})
	tips, err := BranchTips(context.Background(), repo, []string{"main", "feat", "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tips) != 2 || tips["main"] != main || tips["feat"] != feat {
		t.Errorf("BranchTips = %v, want main %s and feat %s", tips, main, feat)
	}
	if _, err := BranchTips(context.Background(), repo, []string{"--all"}); err == nil {
		t.Error("BranchTips took an option for a branch")
	}
}

// A stamp of the ref files changes when a branch moves, whether its ref is
// loose or packed, and stays when nothing moved.
func TestRefsStamp(t *testing.T) {
	repo := newRepo(t, "")
	common := filepath.Join(repo, ".git")
	branches := []string{"main", "feat"}
	first := gitLine(t, repo, "rev-parse", "HEAD")
	steps := []struct {
		name string
		do   func()
		same bool
	}{
		{"nothing", func() {}, true},
		{"main moves", func() { commitOn(t, repo, "main", "", map[string]string{"a.txt": "moved\n"}) }, false},
		{"a new branch", func() { commitOn(t, repo, "feat", first, map[string]string{"c.txt": "c\n"}) }, false},
		{"another branch moves", func() { commitOn(t, repo, "other", first, map[string]string{"d.txt": "d\n"}) }, true},
		{"packed", func() { git(t, repo, "pack-refs", "--all") }, false},
		{"packed main moves", func() { git(t, repo, "update-ref", "refs/heads/main", first) }, false},
	}
	before := ReadRefsStamp(common, branches)
	for _, s := range steps {
		s.do()
		after := ReadRefsStamp(common, branches)
		if after.Same(before) != s.same {
			t.Errorf("%s: Same = %v, want %v", s.name, !s.same, s.same)
		}
		before = after
	}
	if (RefsStamp{}).Same(RefsStamp{}) {
		t.Error("two empty stamps are the same: nothing was stamped")
	}
}
