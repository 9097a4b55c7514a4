package termview

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// cursorView is the cursor: a rectangle and, for a block cursor, the
// character under it drawn again in the cell's background colour (reverse
// video), so the character stays readable.
type cursorView struct {
	rect *canvas.Rectangle
	text *canvas.Text
	// last is what is painted; an unchanged cursor is not refreshed.
	last cursorState
}

// cursorState is everything the cursor's look depends on.
type cursorState struct {
	shown  bool
	pos    fyne.Position
	size   fyne.Size
	fill   color.Color
	stroke color.Color
	// glyph is drawn over a block cursor in glyphColor, over glyphW.
	glyph      string
	glyphColor color.Color
	glyphW     float32
}

func newCursorView() cursorView {
	c := cursorView{rect: &canvas.Rectangle{}, text: &canvas.Text{Alignment: fyne.TextAlignCenter}}
	c.rect.Hide()
	c.text.Hide()
	return c
}

// DECSCUSR shapes (Modes.CursorStyle); 0–2 are blocks.
const (
	cursorUnderline = 3 // and 4, steady
	cursorBar       = 5 // and 6, steady
)

// cursorState works out where and how the cursor is drawn: a block (or
// the shape the program chose) while the widget has the focus, a hollow
// box when not, so the person sees where typing would go and that it
// would not go there now. A scrolled-up view shows no cursor.
func (r *renderer) cursorState() cursorState {
	t := r.t
	s := t.snap
	if s == nil || !s.Cursor.Visible || t.offset != 0 {
		return cursorState{}
	}
	x, y := s.Cursor.X, s.Cursor.Y
	if x < 0 || y < 0 || y >= s.Rows || x >= s.Cols || x >= t.grid.cols || y >= t.grid.rows {
		return cursorState{}
	}
	c := s.Lines[y][x]
	if c.Width == 0 && x > 0 {
		// On the right half of a wide character: cover all of it.
		x--
		c = s.Lines[y][x]
	}
	w := float32(max(int(c.Width), 1))
	st := r.style(r.cellKey(c))
	m := r.m
	cs := cursorState{
		shown: true,
		pos:   fyne.NewPos(m.pad+float32(x)*m.cellW, m.pad+float32(y)*m.cellH),
		size:  fyne.NewSize(w*m.cellW, m.cellH),
	}
	thick := max(2, r.lineW*2)
	switch shape := s.Modes.CursorStyle; {
	case !t.focused:
		cs.fill, cs.stroke = color.Transparent, st.fg
	case shape == cursorUnderline || shape == cursorUnderline+1:
		cs.fill = st.fg
		cs.pos.Y += m.cellH - thick
		cs.size.Height = thick
	case shape == cursorBar || shape == cursorBar+1:
		cs.fill = st.fg
		cs.size.Width = thick
	default:
		cs.fill = st.fg
		if !blank(c) && !st.hidden {
			cs.glyph = s.Grapheme(c)
			cs.glyphColor = st.bg
			cs.glyphW = w * m.cellW
		}
	}
	return cs
}

// updateCursor repaints the cursor if it changed.
func (r *renderer) updateCursor() {
	cs := r.cursorState()
	if cs == r.cur.last {
		return
	}
	r.cur.last = cs
	rect, text := r.cur.rect, r.cur.text
	if !cs.shown {
		rect.Hide()
		text.Hide()
		canvas.Refresh(rect)
		canvas.Refresh(text)
		return
	}
	rect.FillColor = cs.fill
	rect.StrokeColor = cs.stroke
	rect.StrokeWidth = 0
	if cs.stroke != nil {
		rect.StrokeWidth = 1
	}
	rect.Move(cs.pos)
	rect.Resize(cs.size)
	rect.Show()
	if cs.glyph == "" {
		text.Hide()
	} else {
		text.Text = cs.glyph
		text.Color = cs.glyphColor
		text.TextSize = r.m.textSize
		text.TextStyle = monoStyle()
		text.Move(cs.pos)
		text.Resize(fyne.NewSize(cs.glyphW, r.m.cellH))
		text.Show()
	}
	canvas.Refresh(rect)
	canvas.Refresh(text)
}

// indicator is the "↑ N lines" badge shown while the view is scrolled up,
// so the person knows the agent's live screen is below.
type indicator struct {
	box   *canvas.Rectangle
	label *canvas.Text
	// offset and size are what it was last laid out for.
	offset int
	size   fyne.Size
}

func newIndicator() indicator {
	in := indicator{box: &canvas.Rectangle{CornerRadius: 4}, label: &canvas.Text{}}
	in.box.Hide()
	in.label.Hide()
	return in
}

// applyTheme colours the badge like the theme's overlays.
func (in *indicator) applyTheme(th fyne.Theme, v fyne.ThemeVariant) {
	in.box.FillColor = th.Color(theme.ColorNameOverlayBackground, v)
	in.box.StrokeColor = th.Color(theme.ColorNamePrimary, v)
	in.box.StrokeWidth = 1
	in.label.Color = th.Color(theme.ColorNameForeground, v)
	in.label.TextSize = th.Size(theme.SizeNameCaptionText)
	in.offset = -1
}

// updateIndicator shows, moves or hides the badge.
func (r *renderer) updateIndicator() {
	in := &r.ind
	off := r.t.offset
	if off == in.offset && r.size == in.size {
		return
	}
	in.offset, in.size = off, r.size
	if off == 0 {
		in.box.Hide()
		in.label.Hide()
	} else {
		in.label.Text = scrolledLabel(off)
		ts := in.label.MinSize()
		pad := r.m.pad * 2
		boxSize := fyne.NewSize(ts.Width+2*pad, ts.Height+pad)
		at := fyne.NewPos(r.size.Width-boxSize.Width-r.m.pad, r.m.pad)
		in.box.Move(at)
		in.box.Resize(boxSize)
		in.label.Move(at.Add(fyne.NewPos(pad, pad/2)))
		in.label.Resize(ts)
		in.box.Show()
		in.label.Show()
	}
	canvas.Refresh(in.box)
	canvas.Refresh(in.label)
}
