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
