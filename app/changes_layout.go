package app

// The Changes view's rows taller than a line: comment cards, and long
// lines while they wrap; their heights follow the pane's width.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// setWrap turns wrapping of long lines on or off.
func (v *changesView) setWrap(on bool) {
	if v.wrap == on {
		return
	}
	v.wrap = on
	v.setHeights()
	v.lines.Refresh()
}

// setHeights gives the list the height of each row taller than a line:
// comment cards, and long lines while they wrap. The ones no longer tall
// go back to a line's height.
func (v *changesView) setHeights() {
	lineH := newLineWidget(v).MinSize().Height
	width := v.width
	if width <= 0 {
		width = 800 // not laid out yet: set again once it is
	}
	cols := v.wrapColumns()
	tall := map[int]float32{}
	for i, r := range v.rows {
		switch {
		case r.kind == rowComment:
			tall[i] = v.commentHeight(v.inline[r.line], width)
		case v.wrap && r.kind == rowLine:
			if n := wrappedRows(v.files[r.file].Hunks[r.hunk].Lines[r.line].Text, cols); n > 1 {
				tall[i] = float32(n) * lineH
			}
		}
	}
	for i := range v.heights {
		if _, ok := tall[i]; !ok {
			v.lines.SetItemHeight(i, lineH)
		}
	}
	for i, h := range tall {
		v.lines.SetItemHeight(i, h)
	}
	v.heights = tall
}

// wrapColumns is how many columns of text a row of the pane holds.
func (v *changesView) wrapColumns() int {
	l := newLineWidget(v)
	width := v.width
	if width <= 0 {
		width = 800
	}
	// The list's scroll bar takes a padding's width at the right.
	return max(20, int((width-l.gutter()-2*theme.Padding())/l.colW))
}

// paneLayout gives the diff list the pane's size and notices its width
// change: wrapped lines and comment cards change height with it.
type paneLayout struct{ v *changesView }

func (p *paneLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
	if size.Width != p.v.width {
		p.v.width = size.Width
		if len(p.v.heights) > 0 || p.v.wrap || len(p.v.inline) > 0 {
			p.v.setHeights()
		}
	}
}

func (p *paneLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return objs[0].MinSize()
}
