package termview

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Selection is by dragging with the primary button: it runs like text,
// from the cell pressed to the cell under the pointer, across lines and
// into the scrollback. Its ends are absolute lines (see scroll.go), so it
// stays on its text while the agent prints. Copying takes the selection,
// or the whole view when there is none.
//
// A program that asked for mouse reports (MouseTracking) does not get
// clicks or drags: the person selects as in any other terminal that does
// not forward them. Only the wheel is forwarded, on the alternate screen.

// point is a cell in the history: an absolute line and a column.
type point struct{ line, col int }

func (p point) before(q point) bool {
	return p.line < q.line || (p.line == q.line && p.col < q.col)
}

// selection is the selected range, both ends included.
type selection struct {
	on, dragging bool
	start, end   point
	// pressed is where the primary button went down, the start of a drag.
	pressed   fyne.Position
	isPressed bool
}

// ordered returns the selection's ends, first one first.
func (s *selection) ordered() (a, b point) {
	if s.end.before(s.start) {
		return s.end, s.start
	}
	return s.start, s.end
}

// cellAt returns the view cell under pos, clamped to the grid shown.
func (t *Terminal) cellAt(pos fyne.Position) (col, row int) {
	m := t.metrics()
	cols, rows := t.grid.cols, t.grid.rows
	if t.snap != nil {
		cols, rows = min(cols, t.snap.Cols), min(rows, t.snap.Rows)
	}
	col = min(max(int((pos.X-m.pad)/m.cellW), 0), max(cols-1, 0))
	row = min(max(int((pos.Y-m.pad)/m.cellH), 0), max(rows-1, 0))
	return col, row
}

// MouseDown notes where a drag would start: a drag event only says how
// far the pointer moved since the last one.
func (t *Terminal) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button == desktop.MouseButtonPrimary {
		t.sel.pressed, t.sel.isPressed = ev.Position, true
	}
}

// MouseUp is part of desktop.Mouseable.
func (t *Terminal) MouseUp(*desktop.MouseEvent) { t.sel.isPressed = false }

// Dragged extends the selection to the pointer, scrolling the view when
// the pointer is dragged above or below it.
func (t *Terminal) Dragged(ev *fyne.DragEvent) {
	if t.snap == nil {
		return
	}
	if !t.sel.dragging {
		from := ev.Position.Subtract(ev.Dragged)
		if t.sel.isPressed {
			from = t.sel.pressed
		}
		col, row := t.cellAt(from)
		p := point{t.viewTop() + row, col}
		t.sel = selection{on: true, dragging: true, start: p, end: p}
	}
	switch {
	case ev.Position.Y < 0:
		t.scrollTo(t.offset + 1)
	case ev.Position.Y > t.Size().Height:
		t.scrollTo(t.offset - 1)
	}
	col, row := t.cellAt(ev.Position)
	t.sel.end = point{t.viewTop() + row, col}
	t.repaint()
}

// DragEnd finishes the selection; it stays until a click or a keystroke.
func (t *Terminal) DragEnd() {
	t.sel.dragging, t.sel.isPressed = false, false
}

// clearSelection drops the selection.
func (t *Terminal) clearSelection() {
	if t.sel.on {
		t.sel = selection{}
		t.repaint()
	}
}

// SelectedText returns the selected text, "" without a selection. Lines
// are joined with "\n" and lose their trailing blanks, as in Text.
func (t *Terminal) SelectedText() string {
	if !t.sel.on || t.snap == nil {
		return ""
	}
	a, b := t.sel.ordered()
	var sb strings.Builder
	var buf []vt.Cell
	for i := a.line; i <= b.line; i++ {
		var line []vt.Cell
		line, buf = t.lineAt(i, buf)
		from, to := 0, len(line)
		if i == a.line {
			from = min(a.col, to)
		}
		if i == b.line {
			to = min(b.col+1, to)
		}
		if from > 0 && from < len(line) && line[from].Width == 0 {
			from-- // started on the right half of a wide character
		}
		if from < to {
			writeCells(&sb, line[from:to], t.snap.Combining)
		}
		if i < b.line {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// copyText returns what a copy takes: the selection, else the view.
func (t *Terminal) copyText() string {
	if t.sel.on {
		return t.SelectedText()
	}
	return t.Text()
}

// copyToClipboard puts copyText on the clipboard.
func (t *Terminal) copyToClipboard() {
	fyne.CurrentApp().Clipboard().SetContent(t.copyText())
}

// pasteClipboard sends the clipboard to the target as a paste. Line ends
// become carriage returns, what the Enter key sends, as xterm does: a
// program reading raw keys takes a bare line feed as Ctrl+J.
func (t *Terminal) pasteClipboard() {
	text := fyne.CurrentApp().Clipboard().Content()
	if text == "" {
		return
	}
	text = strings.ReplaceAll(text, "\r\n", "\r")
	text = strings.ReplaceAll(text, "\n", "\r")
	t.snapBack()
	_ = t.target.Paste(text)
}

// TappedSecondary offers Copy and Paste in a menu, for people who do not
// know the Ctrl+Shift keys.
func (t *Terminal) TappedSecondary(ev *fyne.PointEvent) {
	c := fyne.CurrentApp().Driver().CanvasForObject(t)
	if c == nil {
		return
	}
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("Copy", t.copyToClipboard),
		fyne.NewMenuItem("Paste", t.pasteClipboard),
	)
	widget.ShowPopUpMenuAtPosition(menu, c, ev.AbsolutePosition)
}

// selectionAlpha caps the highlight's opacity: it is drawn over the text,
// which must show through.
const selectionAlpha = 0x70

// updateSelection paints the selection's visible rows: one rectangle per
// row, from the start column on its first line to the end column on its
// last.
func (r *renderer) updateSelection() {
	t := r.t
	var spans []fyne.CanvasObject
	if t.sel.on && t.snap != nil {
		a, b := t.sel.ordered()
		top := t.viewTop()
		cols := min(t.grid.cols, t.snap.Cols)
		fill := toNRGBA(r.themeColor(theme.ColorNameSelection))
		fill.A = min(fill.A, selectionAlpha)
		m := r.m
		for y := range min(len(r.rows), t.snap.Rows) {
			i := top + y
			if i < a.line || i > b.line {
				continue
			}
			from, to := 0, cols
			if i == a.line {
				from = a.col
			}
			if i == b.line {
				to = b.col + 1
			}
			to = min(to, cols)
			if from >= to {
				continue
			}
			rect := canvas.NewRectangle(fill)
			rect.Move(fyne.NewPos(m.pad+float32(from)*m.cellW, m.pad+float32(y)*m.cellH))
			rect.Resize(fyne.NewSize(float32(to-from)*m.cellW, m.cellH))
			spans = append(spans, rect)
		}
	}
	if sameRects(spans, r.sel.Objects) {
		return
	}
	r.sel.Objects = spans
	canvas.Refresh(r.sel)
}

// sameRects reports whether two lists of rectangles look the same.
func sameRects(a, b []fyne.CanvasObject) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i].(*canvas.Rectangle), b[i].(*canvas.Rectangle)
		if x.Position() != y.Position() || x.Size() != y.Size() || x.FillColor != y.FillColor {
			return false
		}
	}
	return true
}

// themeColor is a colour of the widget's theme.
func (r *renderer) themeColor(name fyne.ThemeColorName) color.Color {
	return r.t.Theme().Color(name, fyne.CurrentApp().Settings().ThemeVariant())
}
