package app

import (
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestClampSide(t *testing.T) {
	for _, tt := range []struct {
		in    float64
		least float32
		want  float32
	}{
		{1000, 600, 1000},
		{100, 600, 600},
		{-5, 600, 600},
		{math.NaN(), 600, 600},
		{1e9, 600, maxWindowSide},
		{math.Inf(1), 600, maxWindowSide},
	} {
		if got := clampSide(tt.in, tt.least); got != tt.want {
			t.Errorf("clampSide(%v, %v) = %v, want %v", tt.in, tt.least, got, tt.want)
		}
	}
}

// TestPlaceRemembersSize opens a window, resizes it, closes it, and finds
// the next window of its kind at that size; a stored size under the
// minimum comes back as the minimum, and quitting remembers open windows.
func TestPlaceRemembersSize(t *testing.T) {
	a := test.NewTempApp(t)
	g := &gui{app: a}
	open := func() fyne.Window {
		w := a.NewWindow("x")
		w.SetContent(widget.NewLabel("content"))
		g.place(w, windowSettings, nil)
		return w
	}
	p := windowSettings.place()

	w := open()
	if got := w.Canvas().Size(); got != p.size {
		t.Fatalf("first open: size %v, want the default %v", got, p.size)
	}
	if got := w.Content().MinSize(); got.Width < p.min.Width || got.Height < p.min.Height {
		t.Fatalf("content's minimum %v is under the window's %v", got, p.min)
	}
	w.Resize(fyne.NewSize(1000, 700))
	w.Close()
	if len(g.placed) != 0 {
		t.Fatalf("a closed window is still listed: %d", len(g.placed))
	}
	w = open()
	if got := w.Canvas().Size(); got != fyne.NewSize(1000, 700) {
		t.Fatalf("reopened at %v, want 1000x700", got)
	}

	w.Resize(fyne.NewSize(1100, 720))
	g.rememberOpenWindows()
	if got := a.Preferences().Float(p.key("width")); got != 1100 {
		t.Fatalf("remembered width at quit %v, want 1100", got)
	}
	w.Close()

	a.Preferences().SetFloat(p.key("width"), 10)
	a.Preferences().SetFloat(p.key("height"), 10)
	w = open()
	if got := w.Canvas().Size(); got != p.min {
		t.Fatalf("a size under the minimum opened at %v, want %v", got, p.min)
	}
	w.Close()
}
