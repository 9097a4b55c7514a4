package termview

import (
	"bytes"
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// recorder is a Target that remembers what it was sent.
type recorder struct {
	input   bytes.Buffer
	pastes  []string
	resizes [][2]int
}

func (r *recorder) Input(p []byte) error    { r.input.Write(p); return nil }
func (r *recorder) Paste(text string) error { r.pastes = append(r.pastes, text); return nil }
func (r *recorder) Resize(cols, rows int) error {
	r.resizes = append(r.resizes, [2]int{cols, rows})
	return nil
}

// take returns and forgets the input sent so far.
func (r *recorder) take() string {
	s := r.input.String()
	r.input.Reset()
	return s
}

// variantTheme is the default theme fixed to one variant, so a test does
// not depend on the desktop's preference.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

// fakeTimers replaces time for the resize debounce: timers fire when the
// test says.
type fakeTimers struct{ pending []*fakeTimer }

type fakeTimer struct {
	f       func()
	stopped bool
}

func (ft *fakeTimers) after(_ time.Duration, f func()) func() bool {
	tm := &fakeTimer{f: f}
	ft.pending = append(ft.pending, tm)
	return func() bool {
		was := !tm.stopped
		tm.stopped = true
		return was
	}
}

// fire runs the timers that were not stopped.
func (ft *fakeTimers) fire() {
	p := ft.pending
	ft.pending = nil
	for _, tm := range p {
		if !tm.stopped {
			tm.stopped = true
			tm.f()
		}
	}
}

// newTestTerminal returns a terminal widget on a recorder in a test app
// with the default theme in variant v, and its fake timers.
func newTestTerminal(t testing.TB, v fyne.ThemeVariant) (*Terminal, *recorder, *fakeTimers) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), v})
	rec := &recorder{}
	ft := &fakeTimers{}
	term := New(rec)
	term.after = ft.after
	return term, rec, ft
}

// screen returns a cols×rows emulator that was sent text.
func screen(cols, rows int, text string) *vt.Terminal {
	vterm := vt.New(cols, rows)
	_, _ = vterm.Write([]byte(text))
	return vterm
}

// sizeFor returns the widget size that fits cols×rows cells exactly.
func sizeFor(term *Terminal, cols, rows int) fyne.Size {
	m := term.metrics()
	return fyne.NewSize(float32(cols)*m.cellW+2*m.pad, float32(rows)*m.cellH+2*m.pad)
}
