package supervisor

import (
	"runtime"
	"syscall"
)

// backgroundNice is how much lower than the agent's the emulator's and the
// recorder's threads run. Both may fall behind the output (their queues
// hold megabytes), the agent and the read loop may not: on a machine with
// few cores the emulator competing at full priority with the agent, and
// with the kernel's tty worker that moves the agent's bytes to us, slowed
// the agent itself. At +10 they still get their share when the machine is
// busy (about a tenth of a full-priority thread's), and everything idle
// otherwise.
const backgroundNice = 10

// goInBackground runs fn on a new goroutine with a thread of its own, at
// backgroundNice. The thread is never given back: when fn returns, the
// runtime ends the thread with the goroutine, so the lowered priority
// never reaches another goroutine. (Threads the runtime starts while on a
// locked thread come from its template thread, not from this one, so they
// do not inherit it either.)
func goInBackground(fn func()) { go runLowered(fn) }

// runLowered runs fn on a lowered thread of its own: the calling
// goroutine's, which must end when runLowered returns so that the thread
// ends with it; or, when the caller holds the main thread, a new
// goroutine's, and the caller gets the main thread back as it was.
func runLowered(fn func()) {
	runtime.LockOSThread()
	if syscall.Gettid() != syscall.Getpid() {
		lowerAndRun(fn)
		return
	}
	// The main thread, which must keep its priority and which the runtime
	// cannot end (a goroutine that ends locked to it parks it for good).
	// While this goroutine holds it no other can run there, so fn's
	// goroutine, started now, gets a thread of its own; the main thread is
	// given back once it has.
	locked := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		close(locked)
		lowerAndRun(fn)
	}()
	<-locked
	runtime.UnlockOSThread()
}

// lowerAndRun lowers the calling goroutine's locked thread and runs fn.
func lowerAndRun(fn func()) {
	// Raising one's own nice value needs no privilege; if it fails fn
	// still runs, at normal priority.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
	fn()
}
