package termview

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// lines returns "line a" to "line b-1", one per row.
func lines(a, b int) string {
	var s []string
	for i := a; i < b; i++ {
		s = append(s, fmt.Sprintf("line %d", i))
	}
	return strings.Join(s, "\n")
}

func TestScrollbackAndSnapBack(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 20, 5))
	vterm := screen(20, 5, strings.ReplaceAll(lines(0, 30), "\n", "\r\n"))
	term.SetScrollback(vterm)
	term.SetSnapshot(vterm.Snapshot())
	if got, want := term.Text(), lines(25, 30); got != want {
		t.Fatalf("live screen %q, want %q", got, want)
	}
	center := fyne.NewPos(10, 10)

	// One wheel notch up is three lines.
	test.Scroll(w.Canvas(), center, 0, 25)
	if got, want := term.Text(), lines(22, 27); got != want {
		t.Fatalf("after one notch %q, want %q", got, want)
	}
	if !term.r.ind.label.Visible() || term.r.ind.label.Text != "↑ 3 lines" {
		t.Errorf("indicator %q visible=%v", term.r.ind.label.Text, term.r.ind.label.Visible())
	}

	// New output while scrolled up leaves the view on its lines.
	_, _ = vterm.Write([]byte("\r\nline 30"))
	term.SetSnapshot(vterm.Snapshot())
	if got, want := term.Text(), lines(22, 27); got != want {
		t.Fatalf("after new output %q, want %q", got, want)
	}
	if term.r.ind.label.Text != "↑ 4 lines" {
		t.Errorf("indicator %q", term.r.ind.label.Text)
	}

	// Scrolling past the top stops at the first line.
	test.Scroll(w.Canvas(), center, 0, 25*100)
	if got, want := term.Text(), lines(0, 5); got != want {
		t.Fatalf("at the top %q, want %q", got, want)
	}
	// Down a notch.
	test.Scroll(w.Canvas(), center, 0, -25)
	if got, want := term.Text(), lines(3, 8); got != want {
		t.Fatalf("a notch down %q, want %q", got, want)
	}

	// A keystroke goes back to the live screen, and is sent.
	test.Type(term, "x")
	if got, want := term.Text(), lines(26, 31); got != want {
		t.Fatalf("after typing %q, want %q", got, want)
	}
	if term.r.ind.label.Visible() {
		t.Error("indicator still shown at the bottom")
	}
	if got := rec.take(); got != "x" {
		t.Errorf("sent %q", got)
	}

	// At the bottom, the view follows new output.
	_, _ = vterm.Write([]byte("\r\nline 31"))
	term.SetSnapshot(vterm.Snapshot())
	if got, want := term.Text(), lines(27, 32); got != want {
		t.Fatalf("following output %q, want %q", got, want)
	}
}

func TestAltScreenWheelGoesToProgram(t *testing.T) {
	term, rec, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 20, 5))
	vterm := screen(20, 5, strings.ReplaceAll(lines(0, 30), "\n", "\r\n")+"\x1b[?1049h")
	term.SetScrollback(vterm)
	term.SetSnapshot(vterm.Snapshot())
	center := fyne.NewPos(10, 10)

	test.Scroll(w.Canvas(), center, 0, 25)
	if got := rec.take(); got != "\x1b[A\x1b[A\x1b[A" {
		t.Errorf("wheel up on the alternate screen sent %q", got)
	}
	if term.offset != 0 {
		t.Errorf("the alternate screen scrolled to %d", term.offset)
	}

	_, _ = vterm.Write([]byte("\x1b[?1000h\x1b[?1006h"))
	term.SetSnapshot(vterm.Snapshot())
	m := term.metrics()
	at := fyne.NewPos(m.pad+3.5*m.cellW, m.pad+2.5*m.cellH) // cell 3, 2
	term.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: at}, Scrolled: fyne.NewDelta(0, -25)})
	want := strings.Repeat("\x1b[<65;4;3M", 3)
	if got := rec.take(); got != want {
		t.Errorf("wheel down with SGR mouse sent %q, want %q", got, want)
	}
}
