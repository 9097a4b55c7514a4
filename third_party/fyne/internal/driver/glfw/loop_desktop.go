//go:build !wasm && !test_web_driver

package glfw

import (
	"fyne.io/fyne/v2"

	"github.com/go-gl/glfw/v3.3/glfw"
)

func (d *gLDriver) initGLFW() {
	err := glfw.Init()
	if err != nil {
		fyne.LogError("failed to initialise GLFW", err)
		return
	}

	initCursors()
}

func (d *gLDriver) pollEvents() {
	glfw.PollEvents() // This call blocks while window is being resized, which prevents freeDirtyTextures from being called
}

// waitEvents is pollEvents after waiting up to timeout seconds for an event (Switchboard patch).
func (d *gLDriver) waitEvents(timeout float64) {
	glfw.WaitEventsTimeout(timeout)
}

// postEmptyEvent ends a waitEvents; any thread may call it (Switchboard patch).
func postEmptyEvent() {
	glfw.PostEmptyEvent()
}

func (d *gLDriver) Terminate() {
	glfw.Terminate()
}
