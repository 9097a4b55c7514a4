package unidiff

import "testing"

// sinceDiff is a change from a reviewed version to the next: a.go has a
// line replaced by two around line 7 and two lines added after line 15,
// gone.txt is deleted, old.md renamed to new.md with line 10 changed.
const sinceDiff = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -4,7 +4,8 @@
 l4
 l5
 l6
-l7
+l7 fixed
+l7b
 l8
 l9
 l10
@@ -15,0 +17,2 @@
+x
+y
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old.md b/new.md
similarity index 90%
rename from old.md
rename to new.md
--- a/old.md
+++ b/new.md
@@ -10 +10 @@
-t
+u
`

// reviewedDiff is the change the review saw, from the base: two lines
// added after a.go's first, its line 9 deleted; dropped.txt deleted.
const reviewedDiff = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,3 +1,5 @@
 b1
+n2
+n3
 b2
 b3
@@ -8,2 +10,1 @@
 b8
-b9
diff --git a/dropped.txt b/dropped.txt
deleted file mode 100644
--- a/dropped.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
`

func mustParse(t *testing.T, d string) []File {
	t.Helper()
	files, err := Parse(d)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestNewLineAtAndTouches(t *testing.T) {
	files := mustParse(t, sinceDiff)
	a := Find(files, "a.go", true)
	for _, c := range []struct {
		old, new int
		touched  bool
	}{
		{0, 0, true}, // the whole file
		{1, 1, false},
		{3, 3, false},
		{4, 4, true}, // the hunk's first context line
		{7, 7, true}, // replaced: the first new line in its place
		{8, 9, true},
		{10, 11, true},
		{11, 12, false},
		{14, 15, false},
		{15, 16, true}, // lines added right after it
		{16, 19, true}, // and right before it
		{17, 20, false},
	} {
		if got := a.NewLineAt(c.old); got != c.new {
			t.Errorf("a.go NewLineAt(%d) = %d, want %d", c.old, got, c.new)
		}
		if got := a.Touches(c.old); got != c.touched {
			t.Errorf("a.go Touches(%d) = %v, want %v", c.old, got, c.touched)
		}
	}
	if g := Find(files, "gone.txt", true); g == nil || !g.Touches(5) {
		t.Error("a deleted file does not touch its lines")
	}
	if m := Find(files, "old.md", true); m == nil || m.Touches(9) || !m.Touches(10) || Find(files, "old.md", false) != nil {
		t.Error("the renamed file: found by its old path, line 10 alone touched")
	}
}

func TestTouchedAndFollow(t *testing.T) {
	reviewed, since := mustParse(t, reviewedDiff), mustParse(t, sinceDiff)
	for _, c := range []struct {
		name string
		path string
		line int
		old  bool
		want bool
	}{
		{"new side, replaced", "a.go", 7, false, true},
		{"new side, in the hunk's context", "a.go", 10, false, true},
		{"new side, untouched", "a.go", 12, false, false},
		{"new side, file not in the change", "b.go", 3, false, false},
		{"new side, file deleted", "gone.txt", 1, false, true},
		{"new side, renamed file by its old path", "old.md", 10, false, true},
		{"old side, followed to line 7", "a.go", 5, true, true},
		{"old side, followed to line 14", "a.go", 12, true, false},
		{"old side, deleted line stands at 11", "a.go", 9, true, false},
		{"old side, file the review saw deleted", "dropped.txt", 1, true, false},
		{"old side, file not in the change reviewed", "gone.txt", 1, true, true},
	} {
		if got := Touched(reviewed, since, c.path, c.line, c.old); got != c.want {
			t.Errorf("%s: Touched(%s:%d) = %v, want %v", c.name, c.path, c.line, got, c.want)
		}
	}
	for _, c := range []struct {
		path, wantPath string
		line, wantLine int
	}{
		{"a.go", "a.go", 8, 9},
		{"old.md", "new.md", 3, 3},
		{"gone.txt", "", 1, 0},
		{"other.go", "other.go", 5, 5},
	} {
		if p, n := Follow(since, c.path, c.line); p != c.wantPath || n != c.wantLine {
			t.Errorf("Follow(%s:%d) = %s:%d, want %s:%d", c.path, c.line, p, n, c.wantPath, c.wantLine)
		}
	}
}
