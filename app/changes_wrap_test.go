package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// Long lines are cut, as before, until the person asks for wrapping:
// then the whole line shows on as many rows as the pane's width needs,
// and the row is that much taller; asked again, they are cut again.
func TestChangesWrapLongLines(t *testing.T) {
	long := "var words = []string{" + strings.Repeat(`"lorem", `, 70) + "}" // 652 columns
	diff := "diff --git a/words.go b/words.go\n--- a/words.go\n+++ b/words.go\n@@ -1,2 +1,2 @@\n package words\n-var words = nil\n+" + long + "\n"
	a := test.NewTempApp(t)
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), &changesFake{diff: diff})
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	v.on(func() { v.win.Resize(fyne.NewSize(1366, 768)) })

	i := v.lineRow("words.go", 2, "new")
	drawn := func() (text string, rows int) {
		t.Helper()
		l := v.shownLine(i)
		if l == nil {
			t.Fatal("the long line is not drawn")
		}
		for k := range l.used {
			text += l.tokens[k].Text
			rows = max(rows, l.rows[k]+1)
		}
		return text, rows
	}
	squash := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	lineH := newLineWidget(v).MinSize().Height

	text, rows := drawn()
	if v.wrapBox.Checked || rows != 1 || !strings.HasSuffix(text, "…") || len(squash(text)) >= len(squash(long)) {
		t.Fatalf("by default: wrap %v, %d rows, %d of %d columns", v.wrapBox.Checked, rows, len(text), len(long))
	}
	if _, tall := v.heights[i]; tall {
		t.Errorf("by default the long line's row is %v tall", v.heights[i])
	}

	test.Tap(v.wrapBox)
	cols := v.wrapColumns()
	want := (len(long) + cols - 1) / cols
	text, rows = drawn()
	if !v.wrap || squash(text) != squash(long) || rows != want || want < 2 {
		t.Fatalf("wrapped at %d columns: %d rows (want %d), whole line %v", cols, rows, want, squash(text) == squash(long))
	}
	if h := v.heights[i]; h < float32(want)*lineH {
		t.Errorf("the wrapped line's row is %v tall, want %d rows of %v", h, want, lineH)
	}
	if _, tall := v.heights[v.lineRow("words.go", 1, "new")]; tall {
		t.Error("a short line's row grew")
	}
	// A narrower pane wraps into more rows.
	v.on(func() { v.win.Resize(fyne.NewSize(1000, 720)) })
	if c := v.wrapColumns(); c >= cols {
		t.Errorf("a narrower window holds %d columns, the wider %d", c, cols)
	} else if _, rows = drawn(); rows != (len(long)+c-1)/c {
		t.Errorf("narrower: %d rows, want %d", rows, (len(long)+c-1)/c)
	}

	test.Tap(v.wrapBox)
	if text, rows = drawn(); v.wrap || rows != 1 || !strings.HasSuffix(text, "…") || len(v.heights) != 0 {
		t.Errorf("wrapping off again: %d rows, %d tall rows", rows, len(v.heights))
	}
}
