//go:build !wasm && !test_web_driver

package glfw

import (
	"fyne.io/fyne/v2/internal/build"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// Switchboard's patch (PATCH.md): a window's place on the screen, read and
// set, so an app can put its windows back where the person left them.
// Upstream has no API for it: a window is centred or left to the window
// manager. Both methods run on the app's goroutine (in a callback or
// fyne.Do), as every window call does; on Wayland, where a client cannot know
// or choose its place, they do nothing.

// minOnScreen is how much of a window, in screen pixels, must fall on a
// monitor for a saved place to be used: enough to grab it by its title.
const minOnScreen = 64

// Position returns where the window's content was last on the screen, in
// screen pixels, and false before the window was first shown.
func (w *window) Position() (x, y int, ok bool) {
	if build.IsWayland || !w.created {
		return 0, 0, false
	}
	return w.xpos, w.ypos, true
}

// SetPosition puts the window's content at x, y in screen pixels, now or
// when it is first shown, instead of centring it. A place that no monitor
// shows (one that was unplugged since) is ignored.
func (w *window) SetPosition(x, y int) {
	if build.IsWayland {
		return
	}
	w.runOnMainWhenCreated(func() {
		if !onAMonitor(x, y) {
			return
		}
		w.centered = false
		w.xpos, w.ypos = x, y
		w.viewport.SetPos(x, y)
	})
}

// onAMonitor reports whether a window at x, y would show at least
// minOnScreen pixels of its top-left on some monitor.
func onAMonitor(x, y int) bool {
	for _, m := range glfw.GetMonitors() {
		mx, my := m.GetPos()
		mode := m.GetVideoMode()
		if mode == nil {
			continue
		}
		if x >= mx && x <= mx+mode.Width-minOnScreen && y >= my && y <= my+mode.Height-minOnScreen {
			return true
		}
	}
	return false
}

// FitToScreen keeps the window, as it is first shown, inside the work area
// of its monitor (the screen less its panels), with frame pixels left above
// it for the window manager's title bar: a size remembered on a larger
// screen, or a default taller than a small one, would otherwise leave the
// window's bottom, often its buttons, off the screen. It shrinks and moves
// the window, never grows it. Call it after SetPosition; a centred window
// is centred once it fits.
func (w *window) FitToScreen(frame int) {
	if build.IsWayland {
		return
	}
	w.runOnMainWhenCreated(func() {
		x, y := w.viewport.GetPos()
		m := glfw.GetPrimaryMonitor()
		if !w.centered {
			m = monitorAt(x, y, m)
		}
		if m == nil {
			return
		}
		ax, ay, aw, ah := m.GetWorkarea()
		// The size the window is about to be given (create sets the
		// viewport to it after the pending calls), in screen pixels.
		ww, wh := w.shouldWidth, w.shouldHeight
		nw, nh := atMost(ww, aw), atMost(wh, ah-frame)
		if nw != ww || nh != wh {
			w.width, w.height = nw, nh
			w.shouldWidth, w.shouldHeight = nw, nh
			w.viewport.SetSize(nw, nh)
		}
		if w.centered {
			return
		}
		nx, ny := within(x, ax, ax+aw-nw), within(y, ay+frame, ay+ah-nh)
		if nx != x || ny != y {
			w.xpos, w.ypos = nx, ny
			w.viewport.SetPos(nx, ny)
		}
	})
}

// monitorAt is the monitor that shows x, y, else fallback.
func monitorAt(x, y int, fallback *glfw.Monitor) *glfw.Monitor {
	for _, m := range glfw.GetMonitors() {
		mx, my := m.GetPos()
		mode := m.GetVideoMode()
		if mode != nil && x >= mx && x < mx+mode.Width && y >= my && y < my+mode.Height {
			return m
		}
	}
	return fallback
}

// atMost is n, or limit when n is larger (this module is built as Go 1.19,
// which has no min and max).
func atMost(n, limit int) int {
	if n > limit {
		return limit
	}
	return n
}

// within is n moved into [lo, hi]; lo wins when hi < lo.
func within(n, lo, hi int) int {
	if n > hi {
		n = hi
	}
	if n < lo {
		n = lo
	}
	return n
}
