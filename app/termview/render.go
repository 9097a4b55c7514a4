package termview

import (
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// How the screen is painted, and why so.
//
// A TextGrid keeps three canvas objects per cell: 30 000 for a 200×50
// screen, each walked and drawn every frame. Here each row is a container
// of a few objects: one rectangle per run of cells sharing a background
// other than the default, one canvas.Text per run sharing a foreground
// (blanks join any run), one line per underlined or struck-out run. A
// typical agent screen is a few hundred objects.
//
// A row is repainted only when its cells differ from the last frame's, and
// only a repainted row is refreshed: Fyne frees the textures of what is
// refreshed and rasterizes it again, so the cost of a frame follows what
// changed, not the screen size. The cursor, the selection and the scroll
// indicator are separate objects for the same reason: a blinking prompt
// does not repaint its row.
//
// Monospace text lands on the grid only if every character has the font's
// advance. ASCII does; any other character is measured once, and one that
// is wider or narrower (a symbol from a fallback font), wide (East Asian,
// emoji) or carries combining marks gets a canvas.Text of its own, centred
// on its cells.

// renderer paints a Terminal.
type renderer struct {
	t *Terminal

	bg   *canvas.Rectangle
	rows []*rowView
	// sel holds the selection's rectangles, drawn over the text.
	sel   *fyne.Container
	cur   cursorView
	ind   indicator
	objs  []fyne.CanvasObject
	size  fyne.Size
	m     metrics
	buf   []vt.Cell
	cells []cellStyle

	pal palette
	// reverse is the screen's reverse video mode the rows were painted in.
	reverse bool
	// screenBg is the default background as shown (the foreground under
	// reverse video); runs of it are not painted, the widget's background
	// shows through.
	screenBg color.NRGBA
	styles   map[styleKey]cellStyle
	// fits caches, per non-ASCII rune, whether it has the monospace
	// advance and can join a run.
	fits map[rune]bool
	// fakeBold says the theme has no bold monospace face, so bold runs are
	// drawn twice, a pixel apart.
	fakeBold bool
	// underY and strikeY are the offsets of underline and strike-out
	// lines from the top of a row; lineW is their thickness.
	underY, strikeY, lineW float32
}

// rowView is one painted row and the objects it reuses.
type rowView struct {
	box *fyne.Container
	// prev is what the row shows; valid is false when it must be
	// repainted whatever its cells (theme change, new width).
	prev  []vt.Cell
	valid bool
	rects []*canvas.Rectangle
	texts []*canvas.Text
	nr    int
	nt    int
}

// maxStyles bounds the style cache; a truecolor gradient could otherwise
// grow it without end.
const maxStyles = 4096

func newRenderer(t *Terminal) *renderer {
	r := &renderer{
		t:   t,
		bg:  canvas.NewRectangle(color.Black),
		sel: &fyne.Container{},
	}
	r.cur = newCursorView()
	r.ind = newIndicator()
	r.applyTheme()
	return r
}

// applyTheme reads colours, sizes and fonts from the theme and marks every
// row for repainting.
func (r *renderer) applyTheme() {
	t := r.t
	th := t.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.pal = newPalette(th, v)
	r.styles = make(map[styleKey]cellStyle)
	r.fits = make(map[rune]bool)
	r.m = t.metrics()
	r.fakeBold = th.Font(fyne.TextStyle{Monospace: true, Bold: true}) == th.Font(monoStyle)
	_, base := fyne.CurrentApp().Driver().RenderedTextSize("M", r.m.textSize, monoStyle, nil)
	r.lineW = max(1, r.m.textSize/14)
	r.underY = min(base+r.lineW, r.m.cellH-r.lineW)
	r.strikeY = base - r.m.textSize*0.3
	r.screenColors()
	r.ind.applyTheme(th, v)
	for _, rv := range r.rows {
		rv.valid = false
	}
	r.sel.Objects = r.sel.Objects[:0]
}

// screenColors sets the background for the screen's reverse video mode.
func (r *renderer) screenColors() {
	r.reverse = r.t.snap != nil && r.t.snap.Modes.ReverseVideo
	r.screenBg = r.pal.bg
	if r.reverse {
		r.screenBg = r.pal.fg
	}
	r.bg.FillColor = r.screenBg
}

// Layout places the rows on the grid.
func (r *renderer) Layout(size fyne.Size) {
	r.size = size
	r.bg.Resize(size)
	t := r.t
	m := r.m
	for len(r.rows) < t.grid.rows {
		r.rows = append(r.rows, &rowView{box: &fyne.Container{}})
	}
	r.rows = r.rows[:t.grid.rows]
	width := float32(t.grid.cols) * m.cellW
	for y, rv := range r.rows {
		rv.box.Move(fyne.NewPos(m.pad, m.pad+float32(y)*m.cellH))
		if s := fyne.NewSize(width, m.cellH); rv.box.Size() != s {
			rv.box.Resize(s)
			rv.valid = false
		}
	}
	r.objs = append(r.objs[:0], r.bg)
	for _, rv := range r.rows {
		r.objs = append(r.objs, rv.box)
	}
	r.objs = append(r.objs, r.sel, r.cur.rect, r.cur.text, r.ind.box, r.ind.label)
	r.update()
}

// MinSize is the widget's.
func (r *renderer) MinSize() fyne.Size { return r.t.MinSize() }

// Objects returns the background, the rows and the overlays, in that
// order (the last drawn on top).
func (r *renderer) Objects() []fyne.CanvasObject { return r.objs }

// Refresh repaints everything, for a new theme.
func (r *renderer) Refresh() {
	r.applyTheme()
	t := r.t
	// A new text size changes how many cells fit.
	t.updateGrid(t.Size())
	r.Layout(t.Size())
	canvas.Refresh(r.bg)
}

// Destroy forgets the renderer, so the widget stops painting into it.
func (r *renderer) Destroy() {
	if r.t.r == r {
		r.t.r = nil
	}
}

// update repaints the rows that changed and the overlays.
func (r *renderer) update() {
	t := r.t
	if t.snap != nil && t.snap.Modes.ReverseVideo != r.reverse {
		r.screenColors()
		canvas.Refresh(r.bg)
		for _, rv := range r.rows {
			rv.valid = false
		}
	}
	for y, rv := range r.rows {
		var line []vt.Cell
		if t.snap != nil {
			line, r.buf = t.viewLine(y, r.buf)
		}
		line = line[:min(len(line), t.grid.cols)]
		if rv.valid && slices.Equal(rv.prev, line) {
			continue
		}
		rv.prev = append(rv.prev[:0], line...)
		rv.valid = true
		r.paintRow(rv, line)
		canvas.Refresh(rv.box)
	}
	r.updateSelection()
	r.updateCursor()
	r.updateIndicator()
}

// style returns the cached style of cells with key k.
func (r *renderer) style(k styleKey) cellStyle {
	if s, ok := r.styles[k]; ok {
		return s
	}
	if len(r.styles) >= maxStyles {
		clear(r.styles)
	}
	s := r.pal.style(k)
	r.styles[k] = s
	return s
}

// cellKey is the style key of c on the current screen.
func (r *renderer) cellKey(c vt.Cell) styleKey {
	return styleKey{fg: c.Fg, bg: c.Bg, attr: c.Attr, reverse: r.reverse}
}

// fitsCell reports whether r is drawn exactly one cell wide by the
// monospace font.
func (r *renderer) fitsCell(ch rune) bool {
	if ch >= 0x20 && ch < 0x7f {
		return true
	}
	if ok, seen := r.fits[ch]; seen {
		return ok
	}
	w := fyne.MeasureText(string(ch), r.m.textSize, monoStyle).Width
	ok := w > r.m.cellW*0.98 && w < r.m.cellW*1.02
	r.fits[ch] = ok
	return ok
}

// blank reports whether c draws nothing but its background.
func blank(c vt.Cell) bool {
	return c.Width == 1 && (c.Rune == 0 || c.Rune == ' ') && c.Comb == 0
}

// paintRow rebuilds rv's objects for line.
func (r *renderer) paintRow(rv *rowView, line []vt.Cell) {
	rv.nr, rv.nt = 0, 0
	r.cells = r.cells[:0]
	var lastKey styleKey
	var last cellStyle
	for i, c := range line {
		k := r.cellKey(c)
		if i == 0 || k != lastKey {
			lastKey, last = k, r.style(k)
		}
		r.cells = append(r.cells, last)
	}
	r.paintBackgrounds(rv, line)
	r.paintText(rv, line)
	r.paintLines(rv, line)
	objs := rv.box.Objects[:0]
	for _, o := range rv.rects[:rv.nr] {
		objs = append(objs, o)
	}
	for _, o := range rv.texts[:rv.nt] {
		objs = append(objs, o)
	}
	rv.box.Objects = objs
}

// paintBackgrounds adds a rectangle per run of cells with the same
// background, other than the screen's.
func (r *renderer) paintBackgrounds(rv *rowView, line []vt.Cell) {
	for x := 0; x < len(line); {
		bg := r.cells[x].bg
		end := x + 1
		for end < len(line) && r.cells[end].bg == bg {
			end++
		}
		if bg != r.screenBg {
			r.rect(rv, bg, float32(x)*r.m.cellW, 0, float32(end-x)*r.m.cellW, r.m.cellH)
		}
		x = end
	}
}

// paintText adds a canvas.Text per run of cells drawn alike.
func (r *renderer) paintText(rv *rowView, line []vt.Cell) {
	var sb strings.Builder
	combs := r.t.snap.Combining
	for x := 0; x < len(line); {
		c, st := line[x], r.cells[x]
		if c.Width == 0 || blank(c) || st.hidden {
			x++
			continue
		}
		if c.Width == 2 || c.Comb != 0 || !r.fitsCell(c.Rune) {
			w := max(int(c.Width), 1)
			r.text(rv, grapheme(c, combs), x, w, st, fyne.TextAlignCenter)
			x += w
			continue
		}
		start, end := x, x
		sb.Reset()
		for ; x < len(line); x++ {
			c := line[x]
			if blank(c) {
				continue // joins the run if text of the same look follows
			}
			n := r.cells[x]
			if c.Width != 1 || c.Comb != 0 || n.hidden || n.fg != st.fg || n.bold != st.bold ||
				n.italic != st.italic || !r.fitsCell(c.Rune) {
				break
			}
			for ; end < x; end++ {
				sb.WriteByte(' ')
			}
			sb.WriteRune(c.Rune)
			end = x + 1
		}
		r.text(rv, sb.String(), start, end-start, st, fyne.TextAlignLeading)
		x = end
	}
}

// paintLines adds the underline and strike-out lines, one per run.
func (r *renderer) paintLines(rv *rowView, line []vt.Cell) {
	for _, strike := range []bool{false, true} {
		for x := 0; x < len(line); {
			st := r.cells[x]
			on := st.underline
			if strike {
				on = st.strike
			}
			if !on || st.hidden {
				x++
				continue
			}
			end := x + 1
			for end < len(line) {
				n := r.cells[end]
				if n.fg != st.fg || n.hidden || (strike && !n.strike) || (!strike && !n.underline) {
					break
				}
				end++
			}
			y := r.underY
			if strike {
				y = r.strikeY
			}
			r.rect(rv, st.fg, float32(x)*r.m.cellW, y, float32(end-x)*r.m.cellW, r.lineW)
			x = end
		}
	}
}

// rect adds a filled rectangle to rv, reusing one from its last paint.
func (r *renderer) rect(rv *rowView, fill color.NRGBA, x, y, w, h float32) {
	if rv.nr == len(rv.rects) {
		rv.rects = append(rv.rects, &canvas.Rectangle{})
	}
	o := rv.rects[rv.nr]
	rv.nr++
	o.FillColor = fill
	o.Move(fyne.NewPos(x, y))
	o.Resize(fyne.NewSize(w, h))
}

// text adds s drawn over cells [x, x+w) in style st, reusing a text
// object from rv's last paint. Bold is drawn twice a pixel apart when the
// theme has no bold monospace font, so it still stands out.
func (r *renderer) text(rv *rowView, s string, x, w int, st cellStyle, align fyne.TextAlign) {
	r.addText(rv, s, float32(x)*r.m.cellW, float32(w)*r.m.cellW, st, align)
	if st.bold && r.fakeBold {
		r.addText(rv, s, float32(x)*r.m.cellW+1, float32(w)*r.m.cellW, st, align)
	}
}

func (r *renderer) addText(rv *rowView, s string, x, w float32, st cellStyle, align fyne.TextAlign) {
	if rv.nt == len(rv.texts) {
		rv.texts = append(rv.texts, &canvas.Text{})
	}
	o := rv.texts[rv.nt]
	rv.nt++
	o.Text = s
	o.Color = st.fg
	o.TextSize = r.m.textSize
	o.TextStyle = fyne.TextStyle{Monospace: true, Bold: st.bold && !r.fakeBold, Italic: st.italic}
	o.Alignment = align
	o.Move(fyne.NewPos(x, 0))
	o.Resize(fyne.NewSize(w, r.m.cellH))
}

// themeColor is a colour of the widget's theme.
func (r *renderer) themeColor(name fyne.ThemeColorName) color.Color {
	return r.t.Theme().Color(name, fyne.CurrentApp().Settings().ThemeVariant())
}
