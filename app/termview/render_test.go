package termview

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// demoScreen is a screen with what an agent prints: colours of each kind,
// renditions, a wide character, box drawing and a prompt with the cursor.
const demoScreen = "$ ls --color\r\n" +
	"\x1b[31mred\x1b[0m \x1b[32mgreen\x1b[0m \x1b[33myellow\x1b[0m \x1b[34mblue\x1b[0m \x1b[35mmagenta\x1b[0m \x1b[36mcyan\x1b[0m \x1b[37mwhite\x1b[0m \x1b[30mblack\x1b[0m\r\n" +
	"\x1b[1mbold\x1b[0m \x1b[1;34mbold blue\x1b[0m \x1b[2mdim\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munderline\x1b[0m \x1b[9mstrike\x1b[0m \x1b[7mreverse\x1b[0m\r\n" +
	"\x1b[48;5;196m  \x1b[48;5;202m  \x1b[48;5;226m  \x1b[48;5;46m  \x1b[48;5;21m  \x1b[48;5;93m  \x1b[0m " +
	"\x1b[48;2;30;60;90m\x1b[38;2;255;200;120m truecolor \x1b[0m \x1b[44;37m status bar \x1b[0m\r\n" +
	"wide: [🚀] end\r\n" +
	"┌────────┐\r\n" +
	"│ \x1b[32m✓\x1b[0m done │\r\n" +
	"└────────┘\r\n" +
	"> \x1b[1mtype here\x1b[0m"

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name    string
		variant fyne.ThemeVariant
	}{
		{"dark", theme.VariantDark},
		{"light", theme.VariantLight},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term, _, _ := newTestTerminal(t, tc.variant)
			vterm := screen(60, 10, demoScreen)
			term.SetSnapshot(vterm.Snapshot())
			w := test.NewTempWindow(t, term)
			w.SetPadded(false)
			w.Resize(sizeFor(term, 60, 10))
			w.Canvas().Focus(term)
			test.AssertImageMatches(t, "render_"+tc.name+".png", w.Canvas().Capture())
		})
	}
}

func TestScrolledUnfocusedGolden(t *testing.T) {
	term, _, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 40, 6))
	vterm := screen(40, 6, strings.ReplaceAll(lines(0, 20), "\n", "\r\n")+"\r\n$ ")
	term.SetScrollback(vterm)
	term.SetSnapshot(vterm.Snapshot())
	// Unfocused, the cursor is a hollow box.
	test.AssertImageMatches(t, "render_unfocused.png", w.Canvas().Capture())
	// Scrolled up two notches, with a selection: no cursor, a badge.
	test.Scroll(w.Canvas(), fyne.NewPos(10, 10), 0, 50)
	drag(term, 2, 1, 3, 2)
	test.AssertImageMatches(t, "render_scrolled.png", w.Canvas().Capture())
}

func TestSameSeqSkipsAndOnlyChangedRowsRepaint(t *testing.T) {
	term, _, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 30, 5))
	vterm := screen(30, 5, "one\r\ntwo\r\nthree")
	term.SetSnapshot(vterm.Snapshot())
	painted := term.r.painted

	// The same Seq is the same screen: not even looked at.
	same := vterm.Snapshot()
	same.Lines[0][0].Rune = 'X'
	term.SetSnapshot(same)
	if term.r.painted != painted || strings.HasPrefix(term.Text(), "X") {
		t.Fatalf("a frame with the same Seq was painted")
	}

	// A change on one row repaints that row.
	_, _ = vterm.Write([]byte("!"))
	term.SetSnapshot(vterm.Snapshot())
	if got := term.r.painted - painted; got != 1 {
		t.Errorf("%d rows repainted for a change on one", got)
	}
	if got, want := term.Text(), "one\ntwo\nthree!\n\n"; got != want {
		t.Errorf("Text %q, want %q", got, want)
	}
	// Moving the cursor alone repaints no row.
	painted = term.r.painted
	_, _ = vterm.Write([]byte("\x1b[1;1H"))
	term.SetSnapshot(vterm.Snapshot())
	if term.r.painted != painted {
		t.Errorf("a cursor move repainted %d rows", term.r.painted-painted)
	}
	if term.r.cur.last.pos != fyne.NewPos(term.metrics().pad, term.metrics().pad) {
		t.Errorf("cursor at %v", term.r.cur.last.pos)
	}
}

func TestWideAndMissingCharactersAreTexts(t *testing.T) {
	term, _, _ := newTestTerminal(t, theme.VariantDark)
	w := test.NewTempWindow(t, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 30, 2))
	term.SetSnapshot(screen(30, 2, "ab  cd \x1b[31mred\x1b[0m 日本x ─│ é").Snapshot())
	if got, want := term.Text(), "ab  cd red 日本x ─│ é\n"; got != want {
		t.Errorf("Text %q, want %q", got, want)
	}
	var texts []string
	var xs []float32
	for _, o := range term.r.rows[0].box.Objects {
		if txt, ok := o.(*canvas.Text); ok {
			texts = append(texts, txt.Text)
			xs = append(xs, txt.Position().X)
		}
	}
	// Characters of the monospace font are in the row's image; each wide
	// character is drawn once, over its two columns.
	want := []string{"日", "本"}
	if !slices.Equal(texts, want) {
		t.Fatalf("texts %q, want %q", texts, want)
	}
	cw := term.metrics().cellW
	if wantX := []float32{11 * cw, 13 * cw}; !slices.Equal(xs, wantX) {
		t.Errorf("at %v, want %v", xs, wantX)
	}
}
