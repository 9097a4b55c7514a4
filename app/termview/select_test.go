package termview

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// drag presses at cell (c0, r0) and drags to (c1, r1) the way the desktop
// driver reports it: the press, then events with the pointer's position
// and its movement since the last event.
func drag(term *Terminal, c0, r0, c1, r1 int) {
	m := term.metrics()
	at := func(c, r int) fyne.Position {
		return fyne.NewPos(m.pad+(float32(c)+0.5)*m.cellW, m.pad+(float32(r)+0.5)*m.cellH)
	}
	from, to := at(c0, r0), at(c1, r1)
	term.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: from}, Button: desktop.MouseButtonPrimary})
	mid := fyne.NewPos((from.X+to.X)/2, (from.Y+to.Y)/2)
	term.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: mid}, Dragged: fyne.NewDelta(mid.X-from.X, mid.Y-from.Y)})
	term.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to}, Dragged: fyne.NewDelta(to.X-mid.X, to.Y-mid.Y)})
	term.DragEnd()
	term.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: to}, Button: desktop.MouseButtonPrimary})
}

func TestSelectAndCopy(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 20, 4))
	term.SetSnapshot(screen(20, 4, "first line\r\nsecond 🚀 line\r\nthird").Snapshot())

	drag(term, 6, 0, 5, 1)
	if got, want := term.SelectedText(), "line\nsecond"; got != want {
		t.Errorf("selected %q, want %q", got, want)
	}
	if len(term.r.sel.Objects) != 2 {
		t.Errorf("%d highlight rectangles, want 2", len(term.r.sel.Objects))
	}
	// Backwards, starting on the right half of the wide character.
	drag(term, 8, 1, 0, 1)
	if got, want := term.SelectedText(), "second 🚀"; got != want {
		t.Errorf("selected %q, want %q", got, want)
	}
	custom(fyne.KeyC, ctrl|shift)(term)
	if got := fyne.CurrentApp().Clipboard().Content(); got != "second 🚀" {
		t.Errorf("copied %q", got)
	}
	// A keystroke drops the selection.
	test.Type(term, "q")
	if term.SelectedText() != "" || len(term.r.sel.Objects) != 0 {
		t.Error("typing kept the selection")
	}
	if got := rec.take(); got != "q" {
		t.Errorf("sent %q", got)
	}
}
