//go:build wasm || test_web_driver

package glfw

import (
	"fyne.io/fyne/v2"

	"github.com/fyne-io/gl-js"
	"github.com/fyne-io/glfw-js"
)

func (d *gLDriver) initGLFW() {
	err := glfw.Init(gl.ContextWatcher)
	if err != nil {
		fyne.LogError("failed to initialise GLFW", err)
		return
	}
}

func (d *gLDriver) pollEvents() {
	glfw.PollEvents() // This call blocks while window is being resized, which prevents freeDirtyTextures from being called
}

// waitEvents does not wait in the browser, where the loop is not blocked (Switchboard patch).
func (d *gLDriver) waitEvents(float64) {
	glfw.PollEvents()
}

func postEmptyEvent() {}

func (d *gLDriver) Terminate() {
	glfw.Terminate()
}
