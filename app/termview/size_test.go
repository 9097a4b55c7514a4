package termview

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

func TestResizeTellsTargetOncePerChange(t *testing.T) {
	term, rec, ft := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	ft.fire() // the window's first size
	rec.resizes = nil

	w.Resize(sizeFor(term, 80, 24))
	if cols, rows := term.GridSize(); cols != 80 || rows != 24 {
		t.Fatalf("GridSize = %d×%d, want 80×24", cols, rows)
	}
	if len(rec.resizes) != 0 {
		t.Fatalf("resized the target before the size settled: %v", rec.resizes)
	}
	ft.fire()
	if want := [][2]int{{80, 24}}; !slices.Equal(rec.resizes, want) {
		t.Fatalf("resizes %v, want %v", rec.resizes, want)
	}

	// Growing by less than a cell changes nothing.
	m := term.metrics()
	w.Resize(sizeFor(term, 80, 24).Add(fyne.NewSize(m.cellW/2, m.cellH/2)))
	ft.fire()
	if len(rec.resizes) != 1 {
		t.Fatalf("a size within the same grid resized the target: %v", rec.resizes)
	}

	// A drag through several sizes ends in one resize, to the last.
	for c := 81; c <= 120; c++ {
		w.Resize(sizeFor(term, c, 30))
	}
	ft.fire()
	if want := [][2]int{{80, 24}, {120, 30}}; !slices.Equal(rec.resizes, want) {
		t.Fatalf("resizes %v, want %v", rec.resizes, want)
	}

	// Back and forth to the size already sent: nothing to send.
	w.Resize(sizeFor(term, 100, 30))
	w.Resize(sizeFor(term, 120, 30))
	ft.fire()
	if len(rec.resizes) != 2 {
		t.Fatalf("resizes %v after returning to the sent size", rec.resizes)
	}
}

func TestFirstResizeSkipsTheSizeTheTerminalHas(t *testing.T) {
	term, rec, ft := newTestTerminal(t, theme.VariantDark)
	term.SetSnapshot(screen(60, 10, "hi").Snapshot())
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 60, 10))
	ft.fire()
	if len(rec.resizes) != 0 {
		t.Errorf("resized to the size the terminal has: %v", rec.resizes)
	}
}

func TestMinSizeIsSmallGrid(t *testing.T) {
	term, _, _ := newTestTerminal(t, theme.VariantDark)
	test.NewTempWindow(t, term)
	if got, want := term.MinSize(), sizeFor(term, minCols, minRows); got != want {
		t.Errorf("MinSize %v, want %v", got, want)
	}
}
