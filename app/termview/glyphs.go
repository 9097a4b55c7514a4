package termview

import (
	"bytes"
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/render"
	"github.com/go-text/typesetting/font"
)

// Why the widget rasterizes glyphs itself.
//
// A canvas.Text is shaped and every glyph of it rasterized from its
// outline each time a new string is drawn; Fyne keeps no glyph cache.
// An agent streaming a build log puts new strings on every row of every
// frame; measured in a real GL window (internal/glbench) that shaping and
// rasterizing took ~60 ms of CPU per 200×50 frame — too slow for 30
// frames a second, and it stalls the UI. So each character of the theme's monospace font is
// rasterized once per size and style into an alpha mask, and a row is
// painted by filling backgrounds and stamping masks into one image, which
// Fyne uploads as one texture. Painting a row is copying pixels; the
// objects Fyne draws per frame are one image per row, whatever the colours.
//
// The masks come from the same font and the same rasterizer (go-text,
// which Fyne uses for its own text), so the terminal's text looks like
// the rest of the window. Characters the monospace font lacks (CJK,
// emoji, rare symbols) and wide characters are left to canvas.Text,
// which has Fyne's font fallback; they are rare enough that its cost does
// not matter.

// glyphKey names a mask: a character in a style.
type glyphKey struct {
	r            rune
	bold, italic bool
	// w is the width in pixels a box-drawing character is stretched to:
	// cells are 8 or 9 pixels wide for an advance of 8.4, and a line must
	// span its cell exactly, neither short of the next nor overlapping it.
	w int
}

// glyphMask is a character's coverage, positioned relative to the top
// left of its cell. A nil mask draws nothing (a space).
type glyphMask struct {
	mask *image.Alpha
	// at is where mask.Bounds().Min lands, relative to the cell.
	at image.Point
}

// maxGlyphs bounds the mask cache; a screen uses a few hundred.
const maxGlyphs = 4096

// glyphCache holds the masks for one font at one pixel size.
type glyphCache struct {
	face *font.Face
	upem float32

	// The size masks are made for: the text size and pixels per unit,
	// and the cell in pixels.
	textSize, scale float32
	cellW, cellH    int
	// baseline is the baseline's distance from the cell top, in pixels,
	// where Fyne draws it for canvas.Text of the same size.
	baseline int
	// ascent and descent are the font's, in pixels.
	ascent, descent float32

	masks map[glyphKey]glyphMask
	// ascii holds the masks of ASCII characters by style (bold, italic),
	// looked up without hashing: they are most of every screen.
	ascii     [4][0x80]glyphMask
	asciiDone [4][0x80]bool
	rend      render.Renderer
}

// newGlyphCache parses the theme's monospace font, falling back to Fyne's
// own if the theme's cannot be read.
func newGlyphCache(th fyne.Theme) *glyphCache {
	face, err := font.ParseTTF(bytes.NewReader(th.Font(monoStyle()).Content()))
	if err != nil {
		fyne.LogError("terminal font", err)
		face, err = font.ParseTTF(bytes.NewReader(theme.DefaultTextMonospaceFont().Content()))
		if err != nil {
			// Fyne's embedded font always parses.
			panic(err)
		}
	}
	return &glyphCache{
		face:  face,
		upem:  float32(face.Upem()),
		masks: make(map[glyphKey]glyphMask),
		rend:  render.Renderer{Color: color.White},
	}
}

// has reports whether the font has a glyph for r; characters it lacks are
// drawn as canvas.Text, with Fyne's font fallback.
func (g *glyphCache) has(r rune) bool {
	if r < 0x7f {
		return true
	}
	_, ok := g.face.NominalGlyph(r)
	return ok
}

// setSize prepares masks for text of textSize units at scale pixels per
// unit in cells of cellW×cellH pixels, dropping masks of another size.
func (g *glyphCache) setSize(textSize, scale float32, cellW, cellH int) {
	if g.textSize == textSize && g.scale == scale && g.cellW == cellW && g.cellH == cellH {
		return
	}
	g.textSize, g.scale, g.cellW, g.cellH = textSize, scale, cellW, cellH
	clear(g.masks)
	g.asciiDone = [4][0x80]bool{}
	g.rend.FontSize, g.rend.PixScale = textSize, scale
	px := textSize * scale / g.upem
	ext, _ := g.face.FontHExtents()
	g.ascent, g.descent = ext.Ascender*px, -ext.Descender*px
	g.baseline = int(math.Ceil(float64(g.ascent)))
}

// mask returns the mask for k, rasterizing it the first time.
func (g *glyphCache) mask(k glyphKey) glyphMask {
	if k.r < 0x80 && k.w == 0 {
		s := 0
		if k.bold {
			s |= 1
		}
		if k.italic {
			s |= 2
		}
		if !g.asciiDone[s][k.r] {
			g.ascii[s][k.r], g.asciiDone[s][k.r] = g.rasterize(k), true
		}
		return g.ascii[s][k.r]
	}
	if m, ok := g.masks[k]; ok {
		return m
	}
	if len(g.masks) >= maxGlyphs {
		clear(g.masks)
	}
	m := g.rasterize(k)
	g.masks[k] = m
	return m
}

// rasterize draws k's glyph into a mask.
func (g *glyphCache) rasterize(k glyphKey) glyphMask {
	// A glyph may overhang its cell (italics, wide letters at small
	// sizes): draw it with a margin and keep only what it covers.
	pad := g.cellW/2 + 2
	img := image.NewAlpha(image.Rect(0, 0, g.cellW+2*pad, g.cellH))
	g.rend.DrawStringAt(string(k.r), img, pad, g.baseline, g.face)
	if isBoxDrawing(k.r) {
		img = g.fitCell(img, k.r, pad, max(k.w, 1))
		pad = 0
	}
	if k.italic {
		img = shear(img, g.baseline)
	}
	if k.bold {
		img = embolden(img)
	}
	b := coverage(img)
	if b.Empty() {
		return glyphMask{}
	}
	sub := img.SubImage(b).(*image.Alpha)
	return glyphMask{mask: sub, at: image.Pt(b.Min.X-pad, b.Min.Y)}
}

// isBoxDrawing reports whether r is a box-drawing or block character,
// which must meet its neighbours' lines edge to edge.
func isBoxDrawing(r rune) bool { return r >= 0x2500 && r <= 0x259f }

// fitCell stretches a box-drawing glyph from the font's cell (its advance
// by its ascent plus descent) to the terminal's cell, so lines join
// across cells and rows even when the grid rounds the font's advance or
// line height to whole pixels.
func (g *glyphCache) fitCell(src *image.Alpha, r rune, pad, w int) *image.Alpha {
	gid, _ := g.face.NominalGlyph(r)
	adv := g.face.HorizontalAdvance(gid) * g.textSize * g.scale / g.upem
	top := float32(g.baseline) - g.ascent
	height := g.ascent + g.descent
	dst := image.NewAlpha(image.Rect(0, 0, w, g.cellH))
	for y := range g.cellH {
		sy := int(top + (float32(y)+0.5)*height/float32(g.cellH))
		for x := range w {
			sx := pad + int((float32(x)+0.5)*adv/float32(w))
			dst.Pix[y*dst.Stride+x] = src.AlphaAt(sx, sy).A
		}
	}
	return dst
}

// shear slants a mask for italics: the monospace font has no italic
// face, and a slant is what terminals draw instead.
func shear(src *image.Alpha, baseline int) *image.Alpha {
	b := src.Bounds()
	dst := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		shift := int(math.Round(float64(baseline-y) * 0.2))
		for x := b.Min.X; x < b.Max.X; x++ {
			if sx := x - shift; sx >= b.Min.X && sx < b.Max.X {
				dst.Pix[dst.PixOffset(x, y)] = src.Pix[src.PixOffset(sx, y)]
			}
		}
	}
	return dst
}

// embolden thickens a mask by a pixel: the monospace font has no bold
// face, and a glyph drawn twice a pixel apart is how terminals fake one.
func embolden(src *image.Alpha) *image.Alpha {
	b := src.Bounds()
	dst := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			a := src.Pix[src.PixOffset(x, y)]
			if x > b.Min.X {
				a = max(a, src.Pix[src.PixOffset(x-1, y)])
			}
			dst.Pix[dst.PixOffset(x, y)] = a
		}
	}
	return dst
}

// coverage returns the smallest rectangle holding every covered pixel.
func coverage(m *image.Alpha) image.Rectangle {
	b := m.Bounds()
	out := image.Rectangle{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if m.Pix[m.PixOffset(x, y)] != 0 {
				out = out.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return out
}
