package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
	"github.com/switchboard-dev/switchboard/store"
)

// foldDiff changes a generated file, a lockfile and two files a person
// wrote, in git's order.
const foldDiff = `diff --git a/api/greet.pb.go b/api/greet.pb.go
--- a/api/greet.pb.go
+++ b/api/greet.pb.go
@@ -1,2 +1,2 @@
 // Code generated. DO NOT EDIT.
-var x = 1
+var x = 2
diff --git a/go.sum b/go.sum
--- a/go.sum
+++ b/go.sum
@@ -1 +1,2 @@
 example.com/a v1.0.0 h1:abc=
+example.com/b v1.2.0 h1:def=
diff --git a/main.go b/main.go
--- a/main.go
+++ b/main.go
@@ -1 +1 @@
-package old
+package main
diff --git a/web/yarn.lock b/web/yarn.lock
--- a/web/yarn.lock
+++ b/web/yarn.lock
@@ -1 +1 @@
-a@1
+a@2
diff --git a/zeta.go b/zeta.go
--- a/zeta.go
+++ b/zeta.go
@@ -1 +1 @@
-package z
+package zeta
`

// Generated files (as the checkout's .gitattributes says) and lockfiles
// come after the others, collapsed to their header and a note; tapping
// the header shows their lines and tapping it again hides them.
func TestChangesFoldedFiles(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: foldDiff, generated: []string{"api/greet.pb.go"}}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	v.on(func() { v.win.Resize(fyne.NewSize(1366, 768)) })

	var order []string
	for i := range v.files {
		order = append(order, v.files[i].Path())
	}
	if want := []string{"main.go", "zeta.go", "api/greet.pb.go", "go.sum", "web/yarn.lock"}; !slices.Equal(order, want) {
		t.Fatalf("files in the order %q, want %q", order, want)
	}
	for i, want := range []foldKind{foldNone, foldNone, foldGenerated, foldLockfile, foldLockfile} {
		if v.folds[i] != want || v.collapsed(i) != (want != foldNone) {
			t.Errorf("%s: fold %d collapsed %v, want %d", order[i], v.folds[i], v.collapsed(i), want)
		}
	}
	for _, c := range []struct{ path, note string }{
		{"api/greet.pb.go", "Generated file (linguist-generated in .gitattributes), collapsed: +1 −1."},
		{"go.sum", "Lockfile, collapsed: +1 −0."},
	} {
		if v.lineRow(c.path, 1, "new") >= 0 {
			t.Errorf("%s shows its lines while collapsed", c.path)
		}
		i := slices.IndexFunc(v.files, func(f unidiff.File) bool { return f.Path() == c.path })
		h := v.fileRow[i]
		if v.rows[h+1].kind != rowNote || (h+2 < len(v.rows) && v.rows[h+2].kind != rowFile) {
			t.Errorf("%s collapsed: rows after its header %+v", c.path, v.rows[h+1:min(h+3, len(v.rows))])
		}
		note := v.shownLine(h + 1)
		if note == nil || !strings.HasPrefix(note.tokens[0].Text, c.note) {
			t.Errorf("%s's note: %+v, want %q", c.path, note, c.note)
		}
		head := v.shownLine(h)
		if head == nil || !strings.HasPrefix(head.tokens[0].Text, "▸ ") {
			t.Fatalf("%s's header: %+v", c.path, head)
		}
	}
	gen := v.fileRow[2]
	test.Tap(v.shownLine(gen))
	if v.collapsed(2) || v.lineRow("api/greet.pb.go", 2, "new") < 0 || !v.collapsed(3) {
		t.Fatalf("after tapping the generated file's header: collapsed %v, its line 2 at row %d", v.collapsed(2), v.lineRow("api/greet.pb.go", 2, "new"))
	}
	if head := v.shownLine(v.fileRow[2]); head == nil || !strings.HasPrefix(head.tokens[0].Text, "▾ ") {
		t.Errorf("the open file's header: %+v", head)
	}
	test.Tap(v.shownLine(v.fileRow[2]))
	if !v.collapsed(2) || v.lineRow("api/greet.pb.go", 2, "new") >= 0 {
		t.Error("tapping the header again did not fold it")
	}
	// Picked in the file list, a folded file opens.
	v.fileList.Select(3)
	if v.collapsed(3) || v.lineRow("go.sum", 2, "new") < 0 {
		t.Error("picking go.sum in the list did not show its lines")
	}
	// A person's file's header does nothing when tapped.
	test.Tap(v.shownLine(v.fileRow[0]))
	if v.lineRow("main.go", 1, "new") < 0 {
		t.Error("tapping main.go's header folded it")
	}
}

// isLockfile knows lockfiles by their name in any folder, not by a part
// of it.
func TestIsLockfile(t *testing.T) {
	for p, want := range map[string]bool{
		"package-lock.json": true, "web/yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true,
		"crates/x/Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true,
		"go.mod": false, "package.json": false, "yarn.lock.md": false, "docs/go.sum.txt": false, "lock": false,
	} {
		if got := isLockfile(p); got != want {
			t.Errorf("isLockfile(%q) = %v, want %v", p, got, want)
		}
	}
}
