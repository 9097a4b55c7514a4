package glfw

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/internal/app"
	"fyne.io/fyne/v2/internal/async"
	"fyne.io/fyne/v2/internal/cache"
	"fyne.io/fyne/v2/internal/driver/common"
	"fyne.io/fyne/v2/internal/painter"
	"fyne.io/fyne/v2/internal/scale"
)

type funcData struct {
	f    func()
	done chan struct{} // Zero allocation signalling channel
}

// channel for queuing functions on the main thread
var (
	funcQueue        = async.NewUnboundedChan[funcData]()
	running, drained atomic.Bool
)

// Switchboard patch (see PATCH.md): once a frame has nothing to draw or animate, the loop
// sleeps in waitEvents until an OS event, a queued function (wakeMain) or idleWait,
// instead of polling events 60 times a second.
const idleWait = 0.5 // seconds

var (
	queued atomic.Int64 // functions sent to funcQueue and not yet received
	idle   struct {
		sync.Mutex
		sleeping bool // the loop is in waitEvents
	}
)

// wakeMain ends the loop's sleep, if it sleeps. The lock is held while posting, so the
// loop cannot wake, quit and terminate GLFW in between.
func wakeMain() {
	idle.Lock()
	if idle.sleeping {
		idle.sleeping = false
		postEmptyEvent()
	}
	idle.Unlock()
}

// sleep is pollEvents after waiting for an event, a wakeMain or idleWait. A function
// queued before idle's lock is taken here is counted in queued, so the loop does not
// wait; one queued after it finds sleeping set and wakes the loop.
func (d *gLDriver) sleep() {
	idle.Lock()
	idle.sleeping = queued.Load() == 0
	sleeping := idle.sleeping
	idle.Unlock()
	if !sleeping {
		d.pollEvents()
		return
	}
	d.waitEvents(idleWait)
	idle.Lock()
	idle.sleeping = false
	idle.Unlock()
}

// Arrange that main.main runs on main thread.
func init() {
	runtime.LockOSThread()
	async.SetMainGoroutine()
}

// force a function f to run on the main thread
func runOnMain(f func()) {
	runOnMainWithWait(f, true)
}

// force a function f to run on the main thread and specify if we should wait for it to return
func runOnMainWithWait(f func(), wait bool) {
	// If we are on main before app run just execute - otherwise add it to the main queue and wait.
	// We also need to run it as-is if the app is in the process of shutting down as the queue will be stopped.
	if !running.Load() && async.IsMainGoroutine() {
		f()
		return
	}
	// Switchboard patch (PATCH.md, "Quitting never waits on a queue nobody reads"): drained is read and queued counted under
	// idle's lock, which the loop holds to set drained, so it waits for every function
	// counted before and none arrives after.
	idle.Lock()
	if drained.Load() {
		idle.Unlock()
		f()
		return
	}
	queued.Add(1)
	idle.Unlock()
	if wait {
		done := common.DonePool.Get()
		defer common.DonePool.Put(done)

		funcQueue.In() <- funcData{f: f, done: done}
		wakeMain()
		<-done
	} else {
		funcQueue.In() <- funcData{f: f}
		wakeMain()
	}
}

func (d *gLDriver) drawSingleFrame() (painted bool) {
	refreshed := false
	for _, win := range d.windowList() {
		w := win.(*window)
		if w.closing {
			continue
		}

		// CheckDirtyAndClear must be checked after visibility,
		// because when a window becomes visible, it could be
		// showing old content without a dirty flag set to true.
		// Do the clear if and only if the window is visible.
		if !w.visible || !w.canvas.CheckDirtyAndClear() {
			// Window hidden or not being redrawn, mark canvasForObject
			// cache alive if it hasn't been done recently
			// n.b. we need to make sure threshold is a bit *after*
			// time.Now() - CacheDuration()
			threshold := time.Now().Add(10*time.Second - cache.ValidDuration)
			if w.lastWalkedTime.Before(threshold) {
				w.canvas.WalkTrees(nil, func(node *common.RenderCacheNode, _ fyne.Position) {
					// marks canvas for object cache entry alive
					_ = cache.GetCanvasForObject(node.Obj())
					// marks renderer cache entry alive
					if wid, ok := node.Obj().(fyne.Widget); ok {
						_, _ = cache.CachedRenderer(wid)
					}
				})
				w.lastWalkedTime = time.Now()
			}
			continue
		}

		painted = true
		w.RunWithContext(func() {
			if w.driver.repaintWindow(w) {
				refreshed = true
			}
		})
	}
	cache.Clean(refreshed)
	return painted
}

func (d *gLDriver) runGL() {
	if !running.CompareAndSwap(false, true) {
		return // Run was called twice.
	}

	d.init()
	if d.trayStart != nil {
		d.trayStart()
	}

	fyne.CurrentApp().Settings().AddListener(func(set fyne.Settings) {
		painter.ClearFontCache()
		cache.ResetThemeCaches()
		app.ApplySettingsWithCallback(set, fyne.CurrentApp(), func(w fyne.Window) {
			c, ok := w.Canvas().(*glCanvas)
			if !ok {
				return
			}
			c.applyThemeOutOfTreeObjects()
			c.reloadScale()
		})
	})

	if f := fyne.CurrentApp().Lifecycle().(*app.Lifecycle).OnStarted(); f != nil {
		f()
	}

	eventTick := time.NewTicker(time.Second / 60)
	quiet := false // the last frame drew and animated nothing, and no function ran since
	for {
		select {
		case <-d.done:
			eventTick.Stop()
			d.Terminate()

			// as we are shutting down make sure we drain the pending funcQueue and close it out.
			// Switchboard patch (PATCH.md, "Quitting never waits on a queue nobody reads"): drained is set first and the drain waits
			// for every function counted in queued, also those still inside funcQueue, where
			// len(Out()) does not see them. The stopped hook is queued after, so it runs at
			// once on the lifecycle's goroutine instead of waiting on a queue nobody reads.
			idle.Lock()
			drained.Store(true)
			idle.Unlock()
			for queued.Load() > 0 {
				f := <-funcQueue.Out()
				queued.Add(-1)
				if f.done != nil {
					f.done <- struct{}{}
				}
			}
			funcQueue.Close()

			l := fyne.CurrentApp().Lifecycle().(*app.Lifecycle)
			if f := l.OnStopped(); f != nil {
				l.QueueEvent(f)
			}
			return
		case f := <-funcQueue.Out():
			queued.Add(-1)
			f.f()
			if f.done != nil {
				f.done <- struct{}{}
			}
			quiet = false
		case <-eventTick.C:
			if quiet {
				d.sleep()
			} else {
				d.pollEvents()
			}
			quiet = true
			for i := 0; i < len(d.windows); i++ {
				w := d.windows[i].(*window)
				if w.viewport == nil {
					continue
				}

				if w.viewport.ShouldClose() {
					d.destroyWindow(w, i)
					i-- // Trailing windows are moved forward one step.
					continue
				}

				expand := w.shouldExpand
				fullScreen := w.fullScreen

				if expand && !fullScreen {
					quiet = false
					w.fitContent()
					shouldExpand := w.shouldExpand
					w.shouldExpand = false
					view := w.viewport

					if shouldExpand && runtime.GOOS != "js" {
						view.SetSize(w.shouldWidth, w.shouldHeight)
					}
				}
			}

			d.animation.TickAnimations()
			if d.drawSingleFrame() || d.animation.Active() {
				quiet = false
			}
		}
	}
}

func (d *gLDriver) destroyWindow(w *window, index int) {
	w.visible = false
	w.viewport.Destroy()
	w.destroy(d)

	if index < len(d.windows)-1 {
		copy(d.windows[index:], d.windows[index+1:])
	}
	d.windows[len(d.windows)-1] = nil
	d.windows = d.windows[:len(d.windows)-1]

	if len(d.windows) == 0 {
		d.Quit()
	}
}

func (d *gLDriver) repaintWindow(w *window) bool {
	canvas := w.canvas
	freed := false
	if canvas.EnsureMinSize() {
		w.shouldExpand = true
	}
	freed = canvas.FreeDirtyTextures() > 0

	updateGLContext(w)
	canvas.paint(canvas.Size())

	view := w.viewport
	visible := w.visible

	if view != nil && visible {
		view.SwapBuffers()
	}

	// mark that we have walked the window and don't
	// need to walk it again to mark caches alive
	w.lastWalkedTime = time.Now()
	return freed
}

// refreshWindow requests that the specified window be redrawn
func refreshWindow(w *window) {
	w.canvas.SetDirty()
}

func updateGLContext(w *window) {
	canvas := w.canvas
	size := canvas.Size()

	// w.width and w.height are not correct if we are maximised, so figure from canvas
	winWidth := float32(scale.ToScreenCoordinate(canvas, size.Width)) * canvas.texScale
	winHeight := float32(scale.ToScreenCoordinate(canvas, size.Height)) * canvas.texScale

	canvas.Painter().SetFrameBufferScale(canvas.texScale)
	canvas.Painter().SetOutputSize(int(winWidth), int(winHeight))
}
