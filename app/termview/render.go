package termview

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// How the screen is painted, and why so.
//
// Each row is one canvas.Raster: an image of its cells, painted from
// cached glyph masks (glyphs.go). Whenever anything changes, Fyne's GL
// painter draws every object of the window again, one draw call each, so
// the number of objects is what a frame costs: a TextGrid keeps three per cell (30 000
// for 200×50), canvas.Text runs a few per colour change (~2 000 for a
// busy coloured screen), rows as images 50, whatever the colours. Text
// the font lacks and wide characters are canvas.Text objects over their
// row (see glyphs.go).
//
// A row is repainted only when its cells differ from the last frame's,
// and only a repainted row is refreshed, which makes Fyne regenerate its
// image at the next paint: the cost of a frame follows what changed. The
// cursor, the selection and the scroll indicator are separate objects for
// the same reason: a moving cursor repaints no row.

// renderer paints a Terminal.
type renderer struct {
	t *Terminal

	// margins are the strips around the grid, in the screen's
	// background; the rows paint the rest. (One rectangle under it all
	// would be simpler, but Fyne draws every object every frame, and
	// without a GPU filling the window once more costs a third of a
	// frame.)
	margins [4]*canvas.Rectangle
	rows    []*rowView
	// sel holds the selection's rectangles, drawn over the text.
	sel  *fyne.Container
	cur  cursorView
	ind  indicator
	objs []fyne.CanvasObject
	size fyne.Size
	m    metrics
	buf  []vt.Cell

	pal    palette
	glyphs *glyphCache
	// reverse is the screen's reverse video mode the rows were painted in.
	reverse bool
	// screenBg is the default background as shown (the foreground under
	// reverse video).
	screenBg color.NRGBA
	styles   map[styleKey]cellStyle
	// lineW is the thickness of the cursor's bar and underline, in units.
	lineW float32
	// src is reused to paint with a colour.
	src image.Uniform
	// painted counts rows repainted, so tests can see what a frame cost.
	painted int
}

// rowView is one painted row.
type rowView struct {
	// box holds the row's image and, over it, its texts.
	box    *fyne.Container
	raster *canvas.Raster
	img    *image.RGBA
	// cells is what the row shows and styles how; valid is false when
	// it must be repainted whatever its cells (theme change, new width).
	cells  []vt.Cell
	styles []cellStyle
	valid  bool
	// stale says the image is older than the cells.
	stale bool
	// texts are characters the monospace font lacks and wide ones,
	// drawn by Fyne; nt of them are in use.
	texts []*canvas.Text
	nt    int
}

// maxStyles bounds the style cache; a truecolor gradient could otherwise
// grow it without end.
const maxStyles = 4096

func newRenderer(t *Terminal) *renderer {
	r := &renderer{t: t, sel: &fyne.Container{}}
	for i := range r.margins {
		r.margins[i] = &canvas.Rectangle{}
	}
	r.cur = newCursorView()
	r.ind = newIndicator()
	r.applyTheme()
	return r
}

// applyTheme reads colours, sizes and the font from the theme and marks
// every row for repainting.
func (r *renderer) applyTheme() {
	t := r.t
	th := t.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.pal = newPalette(th, v)
	r.styles = make(map[styleKey]cellStyle)
	r.glyphs = newGlyphCache(th)
	r.m = t.metrics()
	r.lineW = max(1, r.m.textSize/14)
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
	for _, m := range r.margins {
		m.FillColor = r.screenBg
	}
}

// refreshMargins repaints the margins in a new colour.
func (r *renderer) refreshMargins() {
	for _, m := range r.margins {
		canvas.Refresh(m)
	}
}

// Layout places the rows on the grid.
func (r *renderer) Layout(size fyne.Size) {
	r.size = size
	t := r.t
	m := r.m
	gridW, gridH := float32(t.grid.cols)*m.cellW, float32(t.grid.rows)*m.cellH
	place := func(o *canvas.Rectangle, x, y, w, h float32) {
		o.Move(fyne.NewPos(x, y))
		o.Resize(fyne.NewSize(max(w, 0), max(h, 0)))
	}
	place(r.margins[0], 0, 0, size.Width, m.pad)
	place(r.margins[1], 0, m.pad+gridH, size.Width, size.Height-m.pad-gridH)
	place(r.margins[2], 0, m.pad, m.pad, gridH)
	place(r.margins[3], m.pad+gridW, m.pad, size.Width-m.pad-gridW, gridH)
	for len(r.rows) < t.grid.rows {
		r.rows = append(r.rows, r.newRow())
	}
	r.rows = r.rows[:t.grid.rows]
	rowSize := fyne.NewSize(float32(t.grid.cols)*m.cellW, m.cellH)
	for y, rv := range r.rows {
		rv.box.Move(fyne.NewPos(m.pad, m.pad+float32(y)*m.cellH))
		if rv.box.Size() != rowSize {
			rv.box.Resize(rowSize)
			rv.raster.Resize(rowSize)
			rv.valid = false
		}
	}
	r.objs = r.objs[:0]
	for _, o := range r.margins {
		r.objs = append(r.objs, o)
	}
	for _, rv := range r.rows {
		r.objs = append(r.objs, rv.box)
	}
	r.objs = append(r.objs, r.sel, r.cur.rect, r.cur.text, r.ind.box, r.ind.label)
	r.update()
}

// newRow returns a row whose image is painted by drawRow.
func (r *renderer) newRow() *rowView {
	rv := &rowView{}
	rv.raster = canvas.NewRaster(func(w, h int) image.Image { return r.drawRow(rv, w, h) })
	// The image is made at the screen's pixel size: no smoothing.
	rv.raster.ScaleMode = canvas.ImageScalePixels
	rv.box = &fyne.Container{Objects: []fyne.CanvasObject{rv.raster}}
	return rv
}

// MinSize is the widget's.
func (r *renderer) MinSize() fyne.Size { return r.t.MinSize() }

// Objects returns the margins, the rows and the overlays, in that order
// (the last drawn on top).
func (r *renderer) Objects() []fyne.CanvasObject { return r.objs }

// Refresh repaints everything, for a new theme.
func (r *renderer) Refresh() {
	r.applyTheme()
	t := r.t
	// A new text size changes how many cells fit.
	t.updateGrid(t.Size())
	r.Layout(t.Size())
	r.refreshMargins()
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
		r.refreshMargins()
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
		if rv.valid && slices.Equal(rv.cells, line) {
			continue
		}
		rv.cells = append(rv.cells[:0], line...)
		rv.valid, rv.stale = true, true
		r.paintRow(rv)
		r.painted++
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

// blank reports whether c draws nothing but its background.
func blank(c vt.Cell) bool {
	return c.Width == 1 && (c.Rune == 0 || c.Rune == ' ') && c.Comb == 0
}

// stamped reports whether c is drawn from the glyph cache, rather than
// as a canvas.Text or not at all.
func (r *renderer) stamped(c vt.Cell, st cellStyle) bool {
	return c.Width == 1 && c.Comb == 0 && !blank(c) && !st.hidden && r.glyphs.has(c.Rune)
}

// paintRow resolves the row's styles and places its texts; its image is
// drawn when Fyne next paints it.
func (r *renderer) paintRow(rv *rowView) {
	rv.styles = rv.styles[:0]
	var lastKey styleKey
	var last cellStyle
	for i, c := range rv.cells {
		k := r.cellKey(c)
		if i == 0 || k != lastKey {
			lastKey, last = k, r.style(k)
		}
		rv.styles = append(rv.styles, last)
	}
	rv.nt = 0
	var combs []string
	if r.t.snap != nil {
		combs = r.t.snap.Combining
	}
	for x, c := range rv.cells {
		st := rv.styles[x]
		if c.Width == 0 || blank(c) || st.hidden || r.stamped(c, st) {
			continue
		}
		r.addText(rv, vt.CellText(c, combs), x, max(int(c.Width), 1), st)
	}
	objs := append(rv.box.Objects[:0], rv.raster)
	for _, o := range rv.texts[:rv.nt] {
		objs = append(objs, o)
	}
	rv.box.Objects = objs
}

// addText places s over cells [x, x+w), centred, reusing a text object.
func (r *renderer) addText(rv *rowView, s string, x, w int, st cellStyle) {
	if rv.nt == len(rv.texts) {
		rv.texts = append(rv.texts, &canvas.Text{Alignment: fyne.TextAlignCenter})
	}
	o := rv.texts[rv.nt]
	rv.nt++
	o.Text = s
	o.Color = st.fg
	o.TextSize = r.m.textSize
	o.TextStyle = fyne.TextStyle{Monospace: true, Bold: st.bold, Italic: st.italic}
	o.Move(fyne.NewPos(float32(x)*r.m.cellW, 0))
	// No height: the text is drawn from the row's top, as the glyphs are.
	o.Resize(fyne.NewSize(float32(w)*r.m.cellW, 0))
}

// drawRow paints rv's image at w×h pixels: backgrounds, then glyphs,
// then underlines and strike-outs. It runs when Fyne paints a refreshed
// row, on the Fyne goroutine.
func (r *renderer) drawRow(rv *rowView, w, h int) image.Image {
	if w <= 0 || h <= 0 {
		return image.NewRGBA(image.Rectangle{})
	}
	if rv.img == nil || rv.img.Rect.Dx() != w || rv.img.Rect.Dy() != h {
		rv.img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	img := rv.img
	rv.stale = false
	m := r.m
	cols := max(r.t.grid.cols, 1)
	// Pixels per unit across, from the image Fyne asked for, and the
	// cell edges in pixels: rounding each edge, not the width, keeps the
	// grid exactly as wide as the row at any scale.
	unitX := float64(w) / (float64(cols) * float64(m.cellW))
	unitY := float32(h) / m.cellH
	edge := func(x int) int { return int(math.Round(float64(x) * float64(m.cellW) * unitX)) }
	cellW := int(math.Ceil(float64(m.cellW) * unitX))
	g := r.glyphs
	g.setSize(m.textSize, unitY, cellW, h)

	r.fill(img, img.Rect, r.screenBg)
	cells, styles := rv.cells, rv.styles
	for x := 0; x < len(cells); {
		bg := styles[x].bg
		end := x + 1
		for end < len(cells) && styles[end].bg == bg {
			end++
		}
		if bg != r.screenBg {
			r.fill(img, image.Rect(edge(x), 0, edge(end), h), bg)
		}
		x = end
	}

	for x, c := range cells {
		st := styles[x]
		if !r.stamped(c, st) {
			continue
		}
		k := glyphKey{r: c.Rune, bold: st.bold, italic: st.italic}
		if isBoxDrawing(c.Rune) {
			k.w = edge(x+1) - edge(x)
		}
		if gm := g.mask(k); gm.mask != nil {
			stamp(img, image.Pt(edge(x), 0).Add(gm.at), gm.mask, st.fg)
		}
	}

	lineH := max(1, int(math.Round(float64(unitY))))
	underY := min(g.baseline+lineH, h-lineH)
	strikeY := g.baseline - int(math.Round(float64(g.ascent)*0.3))
	for x := 0; x < len(cells); {
		st := styles[x]
		end := x + 1
		for end < len(cells) && styles[end] == st {
			end++
		}
		if !st.hidden {
			if st.underline {
				r.fill(img, image.Rect(edge(x), underY, edge(end), underY+lineH), st.fg)
			}
			if st.strike {
				r.fill(img, image.Rect(edge(x), strikeY, edge(end), strikeY+lineH), st.fg)
			}
		}
		x = end
	}
	return img
}

// fill paints rect of img in c.
func (r *renderer) fill(img *image.RGBA, rect image.Rectangle, c color.NRGBA) {
	r.src.C = c
	draw.Draw(img, rect, &r.src, image.Point{}, draw.Src)
}

// stamp blends colour c into img through mask, placed with its top left
// at at. It is image/draw's glyph path made for this case — an opaque
// image and colour, most of a mask empty or full — which skips empty
// pixels and copies full ones, at about a third of draw.DrawMask's cost.
func stamp(img *image.RGBA, at image.Point, mask *image.Alpha, c color.NRGBA) {
	mb := mask.Bounds()
	dr := image.Rectangle{Min: at, Max: at.Add(mb.Size())}.Intersect(img.Rect)
	if dr.Empty() {
		return
	}
	sx, sy := mb.Min.X+dr.Min.X-at.X, mb.Min.Y+dr.Min.Y-at.Y
	w := dr.Dx()
	cr, cg, cb := uint32(c.R), uint32(c.G), uint32(c.B)
	for y := range dr.Dy() {
		mo := mask.PixOffset(sx, sy+y)
		do := img.PixOffset(dr.Min.X, dr.Min.Y+y)
		mrow := mask.Pix[mo : mo+w]
		drow := img.Pix[do : do+4*w]
		for i, a := range mrow {
			if a == 0 {
				continue
			}
			d := drow[4*i : 4*i+3 : 4*i+3]
			if a == 0xff {
				d[0], d[1], d[2] = c.R, c.G, c.B
				continue
			}
			ia := uint32(a)
			na := 0xff - ia
			d[0] = uint8((uint32(d[0])*na + cr*ia + 0x7f) / 0xff)
			d[1] = uint8((uint32(d[1])*na + cg*ia + 0x7f) / 0xff)
			d[2] = uint8((uint32(d[2])*na + cb*ia + 0x7f) / 0xff)
		}
	}
}
