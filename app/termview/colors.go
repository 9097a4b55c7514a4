package termview

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// minContrast is the contrast ratio (WCAG) below which a cell's text is
// lightened or darkened until it reads. Agents pick colours for one
// background — Claude Code's dark theme on a light window, black text on a
// dark one — and the person must still read them. 3:1 is WCAG's threshold
// for large text; it leaves a program's chosen colours alone unless they
// are close to unreadable (VS Code's default of 4.5 repaints too much).
const minContrast = 3.0

// dimShare is how far a dim (SGR 2) cell's text is blended towards its
// background. Dimming is applied after the contrast fix, so dim text stays
// visibly dimmer than normal text.
const dimShare = 0.4

// palette maps terminal colours to screen colours for one theme.
type palette struct {
	// fg and bg are the default colours: the theme's, so the terminal sits
	// in the window like any other widget.
	fg, bg color.NRGBA
	// base are the 16 ANSI colours. xterm's values are made for a black
	// background (its "white" vanishes on a light window), so each theme
	// brightness gets its own set, the ones VS Code's terminal uses.
	base [16]color.NRGBA
}

// ansiColors returns the 16 ANSI colours for a dark or a light
// background: VS Code's Dark+ and Light+ terminal colours, widely used and
// tuned for readability on each.
func ansiColors(light bool) [16]uint32 {
	if light {
		return [16]uint32{
			0x000000, 0xcd3131, 0x00bc00, 0x949800, 0x0451a5, 0xbc05bc, 0x0598bc, 0x555555,
			0x666666, 0xcd3131, 0x14ce14, 0xb5ba00, 0x0451a5, 0xbc05bc, 0x0598bc, 0xa5a5a5,
		}
	}
	return [16]uint32{
		0x000000, 0xcd3131, 0x0dbc79, 0xe5e510, 0x2472c8, 0xbc3fbc, 0x11a8cd, 0xe5e5e5,
		0x666666, 0xf14c4c, 0x23d18b, 0xf5f543, 0x3b8eea, 0xd670d6, 0x29b8db, 0xffffff,
	}
}

// newPalette reads the default colours from th and picks the ANSI set by
// how light the background is, not by the theme variant, so a custom theme
// with a dark background in "light" mode still gets readable colours.
func newPalette(th fyne.Theme, v fyne.ThemeVariant) palette {
	p := palette{
		fg: toNRGBA(th.Color(theme.ColorNameForeground, v)),
		bg: toNRGBA(th.Color(theme.ColorNameBackground, v)),
	}
	// The theme background may be translucent; a terminal paints opaque.
	p.bg.A, p.fg.A = 0xff, 0xff
	for i, c := range ansiColors(luminance(p.bg) > 0.5) {
		p.base[i] = color.NRGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 0xff}
	}
	return p
}

// color resolves c, with def standing for the default colour.
func (p *palette) color(c vt.Color, def color.NRGBA) color.NRGBA {
	if i, ok := c.Index(); ok {
		if i < 16 {
			return p.base[i]
		}
		r, g, b := vt.Palette(i)
		return color.NRGBA{r, g, b, 0xff}
	}
	if r, g, b, ok := c.RGB(); ok {
		return color.NRGBA{r, g, b, 0xff}
	}
	return def
}

// cellStyle is how a cell is painted once its attributes are resolved.
type cellStyle struct {
	fg, bg color.NRGBA
	// bold, italic, underline and strike are the renditions a painter can
	// show; blink is not animated.
	bold, italic, underline, strike bool
	// hidden cells paint their background only.
	hidden bool
}

// styleKey is what a cellStyle is computed from, so a renderer can cache
// styles: a screen uses few distinct ones, and the contrast fix is not free.
type styleKey struct {
	fg, bg vt.Color
	attr   vt.Attr
	// reverse is the whole-screen reverse video mode (DECSCNM).
	reverse bool
}

// style resolves a cell's colours and renditions.
func (p *palette) style(k styleKey) cellStyle {
	fgc := k.fg
	// Bold text in one of the 8 base colours is drawn in its bright
	// version, as xterm and most terminals do; programs rely on it.
	if i, ok := fgc.Index(); ok && i < 8 && k.attr&vt.Bold != 0 {
		fgc = vt.IndexedColor(i + 8)
	}
	fg, bg := p.color(fgc, p.fg), p.color(k.bg, p.bg)
	if (k.attr&vt.Reverse != 0) != k.reverse {
		fg, bg = bg, fg
	}
	fg = readable(fg, bg)
	if k.attr&vt.Dim != 0 {
		fg = blend(fg, bg, dimShare)
	}
	return cellStyle{
		fg:        fg,
		bg:        bg,
		bold:      k.attr&vt.Bold != 0,
		italic:    k.attr&vt.Italic != 0,
		underline: k.attr&vt.Underline != 0,
		strike:    k.attr&vt.Strike != 0,
		hidden:    k.attr&vt.Hidden != 0,
	}
}

// readable returns fg, moved towards white or black (whichever is further
// from bg) until it has minContrast against bg.
func readable(fg, bg color.NRGBA) color.NRGBA {
	lb := luminance(bg)
	if contrast(luminance(fg), lb) >= minContrast {
		return fg
	}
	target := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	if contrast(0, lb) > contrast(1, lb) {
		target = color.NRGBA{0, 0, 0, 0xff}
	}
	c := fg
	for step := 1; step <= 10; step++ {
		c = blend(fg, target, float64(step)/10)
		if contrast(luminance(c), lb) >= minContrast {
			break
		}
	}
	return c
}

// blend mixes share of b into a.
func blend(a, b color.NRGBA, share float64) color.NRGBA {
	mix := func(x, y uint8) uint8 {
		return uint8(math.Round(float64(x)*(1-share) + float64(y)*share))
	}
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// luminance is WCAG's relative luminance, 0 for black to 1 for white.
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// contrast is WCAG's contrast ratio of two luminances, 1 to 21.
func contrast(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return (a + 0.05) / (b + 0.05)
}

// toNRGBA converts any colour to non-premultiplied RGBA.
func toNRGBA(c color.Color) color.NRGBA {
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}

// ThemeColors returns the default foreground and background the widget
// paints with under th, as vt colours. Give them to the emulator with
// vt.WithDefaultColors, so an agent that asks the terminal for its colours
// (OSC 10/11, which Claude Code and Codex use to choose a light or dark
// look) gets the colours it is really drawn on.
func ThemeColors(th fyne.Theme, v fyne.ThemeVariant) (fg, bg vt.Color) {
	p := newPalette(th, v)
	return vt.RGBColor(p.fg.R, p.fg.G, p.fg.B), vt.RGBColor(p.bg.R, p.bg.G, p.bg.B)
}
