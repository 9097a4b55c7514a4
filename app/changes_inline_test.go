package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// commentsAfter are the inline comments on the rows right after row i.
func (v *changesView) commentsAfter(i int) []inlineComment {
	var out []inlineComment
	for j := i + 1; j < len(v.rows) && v.rows[j].kind == rowComment; j++ {
		out = append(out, v.inline[v.rows[j].line])
	}
	return out
}

// shownCard is the comment card the list shows for row i, or nil.
func (v *changesView) shownCard(i int) *commentCard {
	if i < 0 || i >= len(v.rows) || v.rows[i].kind != rowComment {
		return nil
	}
	idx := int(v.rows[i].line)
	c, _ := v.findShown(func(o fyne.CanvasObject) bool {
		c, ok := o.(*commentCard)
		return ok && c.idx == idx && c.Visible()
	}).(*commentCard)
	return c
}

// A draft comment stands under the line it is about, on either side;
// Edit changes it there and Remove drops it; once sent, the review's
// comments stay at their lines, marked sent.
func TestChangesCommentsAtTheirLines(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	v.on(func() { v.win.Resize(fyne.NewSize(1366, 768)) })

	comment := func(path string, n int, side, text string) {
		t.Helper()
		i := v.lineRow(path, n, side)
		v.on(func() { v.scrollToRow(i) })
		test.Tap(v.shownLine(i))
		focusAndType(v.win, v.review.commentEntry, text)
		test.Tap(v.review.commentAdd)
	}
	comment("cmd/main.go", 10, "new", "Keep the one-name form.")
	comment("cmd/main.go", 9, "old", "Why did this go?")
	comment("legacy.toml", 2, "old", "Is level read anywhere?")

	at := func(path string, n int, side string) []inlineComment {
		t.Helper()
		i := v.lineRow(path, n, side)
		if i < 0 {
			t.Fatalf("no row for %s:%d (%s)", path, n, side)
		}
		return v.commentsAfter(i)
	}
	texts := func(cs []inlineComment) []string {
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s draft=%v state=%d", c.c.Text, c.draft >= 0, c.state))
		}
		return out
	}
	for _, c := range []struct {
		path string
		n    int
		side string
		want []string
	}{
		{"cmd/main.go", 10, "new", []string{"Keep the one-name form. draft=true state=0"}},
		{"cmd/main.go", 9, "old", []string{"Why did this go? draft=true state=0"}},
		{"legacy.toml", 2, "old", []string{"Is level read anywhere? draft=true state=0"}},
		{"cmd/main.go", 11, "new", nil},
	} {
		if got := texts(at(c.path, c.n, c.side)); !slices.Equal(got, c.want) {
			t.Errorf("under %s:%d (%s): %q, want %q", c.path, c.n, c.side, got, c.want)
		}
	}

	// Edit, in place.
	row := v.lineRow("cmd/main.go", 10, "new") + 1
	v.on(func() { v.scrollToRow(row - 3) })
	card := v.shownCard(row)
	if card == nil || !card.edit.Visible() || !strings.Contains(card.text.Text, "Keep the one-name form.") || !strings.HasPrefix(card.head.Text, labelCommentDraft) {
		t.Fatalf("the draft's card under its line: %+v", card)
	}
	test.Tap(card.edit)
	if !v.review.commentBox.Visible() || v.review.commentEntry.Text != "Keep the one-name form." || v.review.commentAdd.Text != labelCommentSave || v.marked != row-1 {
		t.Fatalf("Edit: entry shown %v with %q, button %q, marked %d (line row %d)", v.review.commentBox.Visible(), v.review.commentEntry.Text, v.review.commentAdd.Text, v.marked, row-1)
	}
	v.on(func() { v.review.commentEntry.SetText("") })
	focusAndType(v.win, v.review.commentEntry, "Keep the one-name form as well.")
	test.Tap(v.review.commentAdd)
	if got := texts(at("cmd/main.go", 10, "new")); !slices.Equal(got, []string{"Keep the one-name form as well. draft=true state=0"}) || len(v.review.comments) != 3 {
		t.Errorf("after Edit: %q, %d comments", got, len(v.review.comments))
	}

	// Remove, in place.
	row = v.lineRow("cmd/main.go", 9, "old") + 1
	v.on(func() { v.scrollToRow(row - 3) })
	test.Tap(v.shownCard(row).remove)
	if got := at("cmd/main.go", 9, "old"); len(got) != 0 || len(v.review.comments) != 2 {
		t.Errorf("after Remove: %q under the line, %d comments", texts(got), len(v.review.comments))
	}

	// Sent: they stay at their lines, as the review's.
	test.Tap(v.review.request)
	verdicts, _ := f.calls()
	if len(verdicts) != 1 || len(verdicts[0].Comments) != 2 {
		t.Fatalf("verdicts %+v", verdicts)
	}
	if got := texts(at("cmd/main.go", 10, "new")); !slices.Equal(got, []string{"Keep the one-name form as well. draft=false state=0"}) {
		t.Errorf("sent, under cmd/main.go:10: %q", got)
	}
	if got := texts(at("legacy.toml", 2, "old")); !slices.Equal(got, []string{"Is level read anywhere? draft=false state=0"}) {
		t.Errorf("sent, under legacy.toml:2 (old): %q", got)
	}
	row = v.lineRow("cmd/main.go", 10, "new") + 1
	v.on(func() { v.scrollToRow(row - 3) })
	if card := v.shownCard(row); card == nil || card.edit.Visible() || !strings.HasPrefix(card.head.Text, labelCommentSent) {
		t.Errorf("the sent comment's card: %+v", card)
	}
}

// reviewedDiff is the change a review saw of the small diff's cmd/main.go
// (a slice where the packet now has a variadic) and legacy.toml.
const reviewedDiff = `diff --git a/cmd/main.go b/cmd/main.go
--- a/cmd/main.go
+++ b/cmd/main.go
@@ -6,11 +6,11 @@
 )
 
-// greet says hello to who.
-func greet(who string) string {
-	return "hello, " + who
+// greet says hello to each of who, on one line.
+func greet(who []string) string {
+	return "hello, " + who[0]
 }
 
 func main() {
-	fmt.Println(greet("world"))
+	fmt.Println(greet([]string{"world", "Ada"}))
 	os.Exit(0)
 }
diff --git a/legacy.toml b/legacy.toml
deleted file mode 100644
--- a/legacy.toml
+++ /dev/null
@@ -1,2 +0,0 @@
-obsolete = true
-level = 3
`

// sinceDiff is what the agent changed after that review: the import and
// greet's signature and body, lines 3 to 13 of the version reviewed.
const sinceDiff = `diff --git a/cmd/main.go b/cmd/main.go
--- a/cmd/main.go
+++ b/cmd/main.go
@@ -3,11 +3,12 @@ package main
 import (
 	"fmt"
 	"os"
+	"strings"
 )
 
 // greet says hello to each of who, on one line.
-func greet(who []string) string {
-	return "hello, " + who[0]
+func greet(who ...string) string {
+	return "hello, " + strings.Join(who, " and ")
 }
 
 func main() {
`

// The packet comes back after a review: each of its comments stands at
// its line as the line stands now, resolved where the agent's change
// touched it, open where it did not.
func TestChangesCommentsResolved(t *testing.T) {
	a := test.NewTempApp(t)
	p := changesPacket(store.PacketInReview)
	p.Review = &store.PacketReview{Verdict: store.VerdictRequestChanges, Notes: "see the lines", By: "operator",
		To: "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c", Comments: []store.ReviewComment{
			{Path: "cmd/main.go", Line: 9, Side: store.SideNew, Text: "Why a slice?"},
			{Path: "cmd/main.go", Line: 14, Side: store.SideNew, Text: "Two names here."},
			{Path: "legacy.toml", Line: 1, Side: store.SideOld, Text: "Is it read anywhere?"},
			{Path: "cmd/main.go", Line: 9, Side: store.SideOld, Text: "Keep the old one too."},
			{Path: "cmd/main.go", Line: 14, Side: store.SideOld, Text: "Say why."},
		}}
	f := &changesFake{diff: readSmallDiff(t), reviewed: reviewedDiff, since: sinceDiff}
	g := newChangesGUI(t, a, p, f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	v.on(func() { v.win.Resize(fyne.NewSize(1366, 768)) })

	f.mu.Lock()
	ranges := slices.Clone(f.ranges)
	f.mu.Unlock()
	if len(ranges) != 2 {
		t.Fatalf("ranges read %q, want the change as reviewed and since", ranges)
	}
	for _, c := range []struct {
		path  string
		n     int
		side  string
		text  string
		state sentState
	}{
		{"cmd/main.go", 10, "new", "Why a slice?", sentResolved},         // line 9 replaced: the new line in its place
		{"cmd/main.go", 15, "new", "Two names here.", sentOpen},          // line 14, a line further down now
		{"legacy.toml", 1, "old", "Is it read anywhere?", sentOpen},      // on a line the review saw deleted
		{"cmd/main.go", 9, "old", "Keep the old one too.", sentResolved}, // where it stood was changed again
		{"cmd/main.go", 14, "old", "Say why.", sentOpen},
	} {
		i := v.lineRow(c.path, c.n, c.side)
		got := v.commentsAfter(i)
		if i < 0 || len(got) != 1 || got[0].c.Text != c.text || got[0].state != c.state || got[0].draft >= 0 {
			t.Errorf("under %s:%d (%s): %+v, want %q in state %d", c.path, c.n, c.side, got, c.text, c.state)
			continue
		}
		v.on(func() { v.scrollToRow(max(0, i-3)) })
		card := v.shownCard(i + 1)
		want := map[sentState]string{sentOpen: labelCommentOpen, sentResolved: labelCommentResolved}[c.state]
		if card == nil || !strings.HasPrefix(card.head.Text, want) || card.remove.Visible() {
			t.Errorf("card of %q: %+v, want headed %q", c.text, card, want)
		}
	}
}
