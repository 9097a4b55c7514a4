package termview

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/app/termview/internal/screens"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// paint draws the images of the rows that changed, as Fyne's painter
// does on the next frame (at scale 1).
func paint(term *Terminal) {
	for _, rv := range term.r.rows {
		if rv.stale {
			s := rv.raster.Size()
			rv.raster.Generator(int(s.Width), int(s.Height))
		}
	}
}

// benchTerminal returns a widget showing a 200×50 grid in a test window.
func benchTerminal(b *testing.B) *Terminal {
	term, _, _ := newTestTerminal(b, theme.VariantDark)
	w := test.NewTempWindow(b, term)
	w.SetPadded(false)
	w.Resize(sizeFor(term, 200, 50))
	if c, r := term.GridSize(); c != 200 || r != 50 {
		b.Fatalf("grid %d×%d", c, r)
	}
	return term
}

// BenchmarkRefresh is the worst frame: SetSnapshot of a full, coloured
// 200×50 screen that differs from the last on every row, and every row's
// image painted. One op is one frame.
func BenchmarkRefresh(b *testing.B) {
	term := benchTerminal(b)
	frames := [2]*vt.Snapshot{screens.Busy(200, 50, 1), screens.Busy(200, 50, 2)}
	frames[0].Seq, frames[1].Seq = 1, 2
	term.SetSnapshot(frames[1])
	paint(term)
	objects := 0
	for _, rv := range term.r.rows {
		objects += len(rv.box.Objects)
	}
	i := 0
	for b.Loop() {
		term.SetSnapshot(frames[i%2])
		paint(term)
		i++
	}
	b.ReportMetric(float64(objects), "objects/frame")
}

// BenchmarkRefreshOneRow is a typical frame: an agent streaming text
// changes one row (and the cursor) of a full 200×50 screen.
func BenchmarkRefreshOneRow(b *testing.B) {
	term := benchTerminal(b)
	base := screens.Busy(200, 50, 1)
	other := screens.Busy(200, 50, 2)
	frames := [2]*vt.Snapshot{base, cloneSnapshot(base)}
	copy(frames[1].Lines[25], other.Lines[25])
	frames[1].Cursor.X = 10
	frames[0].Seq, frames[1].Seq = 1, 2
	i := 0
	for b.Loop() {
		term.SetSnapshot(frames[i%2])
		paint(term)
		i++
	}
}

// BenchmarkRefreshLog is an agent streaming a build log (vt.BenchStream:
// coloured file names, wide characters, a progress bar) as fast as a
// 30 frames/s viewer shows it: every frame the screen has scrolled by
// dozens of lines, so every row is new.
func BenchmarkRefreshLog(b *testing.B) {
	term := benchTerminal(b)
	stream := vt.BenchStream(2 << 20)
	vterm := vt.New(200, 50)
	var frames []*vt.Snapshot
	for off := 0; off+8000 <= len(stream); off += 8000 {
		_, _ = vterm.Write(stream[off : off+8000])
		frames = append(frames, vterm.Snapshot())
	}
	i := 0
	for b.Loop() {
		s := *frames[i%len(frames)]
		s.Seq = uint64(i + 1)
		term.SetSnapshot(&s)
		paint(term)
		i++
	}
}

// cloneSnapshot copies s's cells so the copy can be changed.
func cloneSnapshot(s *vt.Snapshot) *vt.Snapshot {
	c := *s
	c.Lines = make([][]vt.Cell, len(s.Lines))
	for y, l := range s.Lines {
		c.Lines[y] = append([]vt.Cell(nil), l...)
	}
	return &c
}

// BenchmarkSameSeq is a frame that did not change.
func BenchmarkSameSeq(b *testing.B) {
	term := benchTerminal(b)
	s := screens.Busy(200, 50, 1)
	term.SetSnapshot(s)
	for b.Loop() {
		term.SetSnapshot(s)
	}
}
