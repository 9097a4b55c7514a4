package termview

import (
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Smallest grid the widget asks for: enough for a prompt and a few lines;
// a window can make it smaller, a layout should not.
const (
	minCols = 20
	minRows = 5
)

// The terminal size a PTY accepts (supervisor.Session.Resize checks the
// same bounds).
const (
	maxCols = 1000
	maxRows = 500
)

// gridSize is a size in cells.
type gridSize struct{ cols, rows int }

// metrics are the cell size and margin for the current theme.
type metrics struct {
	textSize float32
	// cellW is the advance of a monospace character, so text is spaced
	// as the font means it; cellH is the line height rounded to whole
	// units, so rows start on whole pixels at the usual scales and leave
	// no seams. Box-drawing characters are stretched to the cell
	// (glyphs.go), so their lines join whatever the rounding.
	cellW, cellH float32
	// pad is the margin between the widget's edge and the grid.
	pad float32
}

// monoStyle is the style every cell is drawn in.
func monoStyle() fyne.TextStyle { return fyne.TextStyle{Monospace: true} }

// metrics returns the cell metrics for the widget's theme, measuring again
// only when the text size changes.
func (t *Terminal) metrics() metrics {
	th := t.Theme()
	size := th.Size(theme.SizeNameText)
	if t.m.textSize == size && t.m.cellW > 0 {
		return t.m
	}
	// Ten characters measure the advance more exactly than one.
	w := fyne.MeasureText(strings.Repeat("M", 10), size, monoStyle())
	t.m = metrics{
		textSize: size,
		cellW:    w.Width / 10,
		cellH:    float32(math.Round(float64(w.Height))),
		pad:      th.Size(theme.SizeNameInnerPadding) / 2,
	}
	return t.m
}

// gridFor returns how many cells fit in size.
func (m metrics) gridFor(size fyne.Size) gridSize {
	// A hair of slack so a size computed as n cells is not n-1 by rounding.
	const slack = 0.01
	cols := int((size.Width-2*m.pad)/m.cellW + slack)
	rows := int((size.Height-2*m.pad)/m.cellH + slack)
	return gridSize{min(max(cols, 0), maxCols), min(max(rows, 0), maxRows)}
}

// GridSize returns the size in cells that fits the widget: what the agent's
// terminal is (or is about to be) resized to.
func (t *Terminal) GridSize() (cols, rows int) { return t.grid.cols, t.grid.rows }

// MinSize is minCols×minRows cells.
func (t *Terminal) MinSize() fyne.Size {
	m := t.metrics()
	return fyne.NewSize(minCols*m.cellW+2*m.pad, minRows*m.cellH+2*m.pad)
}

// Resize lays the widget out and, when a different number of cells fits,
// resizes the target once the size has settled for resizeDelay.
func (t *Terminal) Resize(size fyne.Size) {
	t.updateGrid(size)
	t.BaseWidget.Resize(size)
}

// updateGrid computes the grid for size and, when it changed, schedules
// resizing the target.
func (t *Terminal) updateGrid(size fyne.Size) {
	g := t.metrics().gridFor(size)
	if g == t.grid {
		return
	}
	t.grid = g
	if t.cancelResize != nil {
		t.cancelResize()
	}
	t.cancelResize = t.after(resizeDelay, t.sendSize)
}

// sendSize resizes the target to the grid, unless it already has that
// size or the grid is too small for a PTY.
func (t *Terminal) sendSize() {
	t.cancelResize = nil
	g := t.grid
	if g == t.sent || g.cols < 2 || g.rows < 1 {
		return
	}
	if t.sent == (gridSize{}) && t.snap != nil && t.snap.Cols == g.cols && t.snap.Rows == g.rows {
		// The first size to send is the one the terminal already has:
		// a resize would only make the agent redraw.
		t.sent = g
		return
	}
	t.sent = g
	// An error means the agent has ended; its screen stays as it was.
	_ = t.target.Resize(g.cols, g.rows)
}
