//go:build ignore

// gen_icons draws Switchboard's icons: a patch panel with jacks and one patch cable, the
// motif of an old telephone switchboard. Run it from the module root after changing the
// design, and commit the PNGs it writes:
//
//	go run assets/gen_icons.go
//
// Shapes are described by signed distance functions in a unit square and rendered with
// 4×4 supersampling, so the same design stays crisp at 256 px and at a 22 px tray slot
// without any image library beyond the standard one.
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

// rgba is a straight (non-premultiplied) colour with components in [0, 1].
type rgba struct{ r, g, b, a float64 }

func hex(v uint32) rgba {
	return rgba{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}
}

// shape is one painted layer: where it is (negative distance inside, in unit coordinates)
// and what colour it has at a point.
type shape struct {
	dist  func(x, y float64) float64
	paint func(x, y float64) rgba
}

func solid(c rgba) func(x, y float64) rgba { return func(float64, float64) rgba { return c } }

func circle(cx, cy, r float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

func ring(cx, cy, r, width float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Abs(math.Hypot(x-cx, y-cy)-r) - width/2 }
}

func roundRect(x0, y0, x1, y1, r float64) func(x, y float64) float64 {
	cx, cy := (x0+x1)/2, (y0+y1)/2
	hx, hy := (x1-x0)/2-r, (y1-y0)/2-r
	return func(x, y float64) float64 {
		dx := math.Abs(x-cx) - hx
		dy := math.Abs(y-cy) - hy
		out := math.Hypot(math.Max(dx, 0), math.Max(dy, 0))
		return out + math.Min(math.Max(dx, dy), 0) - r
	}
}

func outline(d func(x, y float64) float64, width float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Abs(d(x, y)+width/2) - width/2 }
}

// cable is a quadratic Bézier from (x0,y0) to (x2,y2) pulled towards (x1,y1), drawn as a
// stroke of the given width: how a patch cable sags between two jacks.
func cable(x0, y0, x1, y1, x2, y2, width float64) func(x, y float64) float64 {
	const steps = 48
	pts := make([][2]float64, steps+1)
	for i := range pts {
		t := float64(i) / steps
		u := 1 - t
		pts[i] = [2]float64{u*u*x0 + 2*u*t*x1 + t*t*x2, u*u*y0 + 2*u*t*y1 + t*t*y2}
	}
	return func(x, y float64) float64 {
		best := math.Inf(1)
		for i := 0; i < steps; i++ {
			best = math.Min(best, segment(x, y, pts[i], pts[i+1]))
		}
		return best - width/2
	}
}

func segment(x, y float64, a, b [2]float64) float64 {
	vx, vy := b[0]-a[0], b[1]-a[1]
	wx, wy := x-a[0], y-a[1]
	t := math.Max(0, math.Min(1, (wx*vx+wy*vy)/(vx*vx+vy*vy)))
	return math.Hypot(wx-t*vx, wy-t*vy)
}

// render paints the layers bottom to top into a size×size image.
func render(size int, layers []shape) *image.NRGBA {
	const ss = 4 // samples per axis
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64 // premultiplied sums
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					var cr, cg, cb, ca float64
					for _, l := range layers {
						if l.dist(x, y) > 0 {
							continue
						}
						c := l.paint(x, y)
						cr = c.r*c.a + cr*(1-c.a)
						cg = c.g*c.a + cg*(1-c.a)
						cb = c.b*c.a + cb*(1-c.a)
						ca = c.a + ca*(1-c.a)
					}
					r, g, b, a = r+cr, g+cg, b+cb, a+ca
				}
			}
			n := float64(ss * ss)
			r, g, b, a = r/n, g/n, b/n, a/n
			if a > 0 {
				r, g, b = r/a, g/a, b/a
			}
			img.SetNRGBA(px, py, color.NRGBA{R: to8(r), G: to8(g), B: to8(b), A: to8(a)})
		}
	}
	return img
}

func to8(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255)) }

// forTray adapts a tray icon to Fyne's Linux tray (fyne.io/systray), which converts the PNG
// to the StatusNotifierItem pixmap with the low byte of Go's 16-bit premultiplied colour.
// That byte is noise unless colour×alpha is a multiple of 255, and the noise shows as
// coloured specks along anti-aliased edges. Rounding partial alpha to a multiple of 51 and
// those pixels' colour to a multiple of 5 makes every product exact; the edge keeps five
// levels of smoothing, and opaque pixels are untouched.
func forTray(img *image.NRGBA) *image.NRGBA {
	for i := 0; i < len(img.Pix); i += 4 {
		p := img.Pix[i : i+4 : i+4]
		if p[3] == 0 || p[3] == 255 {
			continue
		}
		p[3] = roundTo(p[3], 51)
		if p[3] == 0 {
			p[0], p[1], p[2] = 0, 0, 0
			continue
		}
		for c := 0; c < 3; c++ {
			p[c] = roundTo(p[c], 5)
		}
	}
	return img
}

// roundTo rounds v to the nearest multiple of step; step divides 255, so no overflow.
func roundTo(v, step uint8) uint8 {
	return uint8((int(v) + int(step)/2) / int(step) * int(step))
}

// Palette. The tray panel is light with a dark rim so it reads on dark and light panels.
var (
	rim      = hex(0x37474F) // blue grey 800
	face     = hex(0xECEFF1) // blue grey 50
	jack     = hex(0x455A64) // blue grey 700
	idleLead = hex(0x78909C) // blue grey 400
	blue     = hex(0x1E88E5)
	green    = hex(0x43A047)
	alert    = hex(0xF4511E) // deep orange 600
	white    = hex(0xFFFFFF)
)

// Jack positions of the tray panel: two rows of three.
var trayJacks = [][2]float64{{0.27, 0.39}, {0.50, 0.39}, {0.73, 0.39}, {0.27, 0.65}, {0.50, 0.65}, {0.73, 0.65}}

// trayIcon draws the panel, its jacks and a cable from the top-left to the bottom-right
// jack; lead colours the cable and its plugs, lit (if set) the jacks that are in use.
func trayIcon(lead rgba, lit *rgba) []shape {
	panel := roundRect(0.05, 0.16, 0.95, 0.88, 0.13)
	layers := []shape{
		{panel, solid(face)},
		{outline(panel, 0.065), solid(rim)},
	}
	for i, j := range trayJacks {
		c := jack
		if lit != nil && (i == 1 || i == 3) {
			c = *lit
		}
		layers = append(layers, shape{circle(j[0], j[1], 0.07), solid(c)})
	}
	a, b := trayJacks[0], trayJacks[5]
	layers = append(layers,
		shape{cable(a[0], a[1], 0.45, 1.0, b[0], b[1], 0.1), solid(lead)},
		shape{circle(a[0], a[1], 0.1), solid(lead)},
		shape{circle(b[0], b[1], 0.1), solid(lead)},
	)
	return layers
}

// attentionDot is the orange badge in the top-right corner, ringed in white so that it
// stays separate from the panel rim at small sizes.
func attentionDot() []shape {
	return []shape{
		{circle(0.80, 0.22, 0.22), solid(white)},
		{circle(0.80, 0.22, 0.17), solid(alert)},
	}
}

// appIcon is the 256 px launcher icon: a dark board with nine jacks and three cables.
func appIcon() []shape {
	board := roundRect(0.04, 0.04, 0.96, 0.96, 0.2)
	gradient := func(_, y float64) rgba {
		top, bottom := hex(0x455A64), hex(0x263238)
		return rgba{top.r + (bottom.r-top.r)*y, top.g + (bottom.g-top.g)*y, top.b + (bottom.b-top.b)*y, 1}
	}
	layers := []shape{{board, gradient}}
	panel := roundRect(0.14, 0.16, 0.86, 0.74, 0.07)
	layers = append(layers, shape{panel, solid(hex(0x546E7A))}, shape{outline(panel, 0.015), solid(hex(0x78909C))})
	var jacks [][2]float64
	for _, y := range []float64{0.29, 0.45, 0.61} {
		for _, x := range []float64{0.29, 0.50, 0.71} {
			jacks = append(jacks, [2]float64{x, y})
			layers = append(layers,
				shape{circle(x, y, 0.055), solid(hex(0xCFD8DC))},
				shape{circle(x, y, 0.03), solid(hex(0x263238))},
			)
		}
	}
	type lead struct {
		from, to int
		sag      [2]float64
		c        rgba
	}
	for _, l := range []lead{
		{0, 7, [2]float64{0.30, 0.98}, blue},
		{2, 4, [2]float64{0.72, 0.86}, green},
		{3, 8, [2]float64{0.52, 1.02}, alert},
	} {
		a, b := jacks[l.from], jacks[l.to]
		layers = append(layers,
			shape{cable(a[0], a[1], l.sag[0], l.sag[1], b[0], b[1], 0.035), solid(l.c)},
			shape{circle(a[0], a[1], 0.045), solid(l.c)},
			shape{circle(b[0], b[1], 0.045), solid(l.c)},
		)
	}
	return layers
}

func write(dir, name string, img *image.NRGBA) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return f.Close()
}

func main() {
	dir := "assets"
	if _, err := os.Stat(filepath.Join(dir, "assets.go")); err != nil {
		dir = "." // run from inside assets/
	}
	idle := trayIcon(idleLead, nil)
	icons := []struct {
		name string
		img  *image.NRGBA
	}{
		{"app.png", render(256, appIcon())},
		{"tray-idle.png", forTray(render(64, idle))},
		{"tray-working.png", forTray(render(64, trayIcon(blue, &green)))},
		{"tray-attention.png", forTray(render(64, append(append([]shape{}, idle...), attentionDot()...)))},
	}
	// The installed icons (make install puts them in the hicolor theme, app.png as the 256 px one): the design drawn
	// again at each size rather than the 256 px one scaled, so small ones stay crisp.
	for _, size := range []int{16, 22, 24, 32, 48, 64, 128} {
		icons = append(icons, struct {
			name string
			img  *image.NRGBA
		}{filepath.Join("hicolor", fmt.Sprintf("%d.png", size)), render(size, appIcon())})
	}
	if err := os.MkdirAll(filepath.Join(dir, "hicolor"), 0o755); err != nil {
		log.Fatalf("gen_icons: %v", err)
	}
	for _, ic := range icons {
		if err := write(dir, ic.name, ic.img); err != nil {
			log.Fatalf("gen_icons: %v", err)
		}
	}
}
