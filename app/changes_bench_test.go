package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
	"github.com/switchboard-dev/switchboard/internal/unidiff/difftest"
	"github.com/switchboard-dev/switchboard/mcpserver"
)

// benchChangesView is a Changes view alone in a test window,
// with no registry: the benchmarks measure the view, not the calls.
func benchChangesView(b *testing.B, a fyne.App, diff string) *changesView {
	b.Helper()
	log, _ := newTestLogger()
	g := &gui{app: a, log: log, quit: func() {}}
	v := newChangesView(g, a.NewWindow("changes"), changesSource{sessionID: "ses_bench"})
	v.win.SetContent(v.content)
	files, err := unidiff.Parse(diff)
	if err != nil {
		b.Fatal(err)
	}
	v.apply(mcpserver.DiffResult{Diff: diff}, files)
	v.win.Resize(fyne.NewSize(1200, 800))
	v.win.Show()
	return v
}

// BenchmarkChangesFirstPaint: a change of 5,000 files and 100,000 lines,
// from its text to the first frame: parse, the view's rows, layout and
// one frame drawn by the test driver's software painter (slower than the
// OpenGL one the app uses).
func BenchmarkChangesFirstPaint(b *testing.B) {
	a := test.NewTempApp(b)
	diff := difftest.Synthetic(5000, 100000)
	b.SetBytes(int64(len(diff)))
	for b.Loop() {
		v := benchChangesView(b, a, diff)
		v.win.Canvas().Capture()
		b.StopTimer()
		v.win.Close()
		b.StartTimer()
	}
}

// BenchmarkChangesScroll: one scroll step of the diff pane (three lines,
// a wheel notch) and the frame it draws, far into the change so that
// each step meets lines not tokenised yet.
func BenchmarkChangesScroll(b *testing.B) {
	a := test.NewTempApp(b)
	v := benchChangesView(b, a, difftest.Synthetic(5000, 100000))
	defer v.win.Close()
	c := v.win.Canvas()
	c.Capture()
	pos := fyne.NewPos(800, 400)
	var worst time.Duration
	for b.Loop() {
		start := time.Now()
		test.Scroll(c, pos, 0, -60)
		c.Capture()
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkChangesScrollLayout is BenchmarkChangesScroll without the
// software painter: what the view itself costs per step (rows updated,
// lines tokenised), which is what bounds a frame on the OpenGL driver.
func BenchmarkChangesScrollLayout(b *testing.B) {
	a := test.NewTempApp(b)
	v := benchChangesView(b, a, difftest.Synthetic(5000, 100000))
	defer v.win.Close()
	c := v.win.Canvas()
	c.Capture()
	pos := fyne.NewPos(800, 400)
	for b.Loop() {
		test.Scroll(c, pos, 0, -60)
	}
}

// BenchmarkChangesRepaint is the baseline of BenchmarkChangesScroll: the
// same window drawn again by the software painter with nothing changed.
func BenchmarkChangesRepaint(b *testing.B) {
	a := test.NewTempApp(b)
	v := benchChangesView(b, a, difftest.Synthetic(5000, 100000))
	defer v.win.Close()
	c := v.win.Canvas()
	for b.Loop() {
		c.Capture()
	}
}

// BenchmarkChangesBuild is BenchmarkChangesFirstPaint without the
// software painter: parse, rows and the first layout.
func BenchmarkChangesBuild(b *testing.B) {
	a := test.NewTempApp(b)
	diff := difftest.Synthetic(5000, 100000)
	for b.Loop() {
		v := benchChangesView(b, a, diff)
		b.StopTimer()
		v.win.Close()
		b.StartTimer()
	}
}
