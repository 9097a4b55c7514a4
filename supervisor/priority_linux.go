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

// runInBackground gives the calling goroutine a thread of its own and
// lowers that thread's priority. The thread is never given back: when the
// goroutine returns, the runtime ends the thread with it, so the lowered
// priority never reaches another goroutine. (Threads the runtime starts
// while on a locked thread come from its template thread, not from this
// one, so they do not inherit it either.)
//
// The main thread is the exception: the runtime cannot end it, and parks
// it for good instead, so a goroutine must not lower it or end on it. When
// the goroutine finds itself there it lets go and tries again after a
// yield, which lands it on another thread almost every time; if it never
// does, the work runs at normal priority on whichever thread it gets.
func runInBackground() {
	for range 10 {
		runtime.LockOSThread()
		if syscall.Gettid() != syscall.Getpid() {
			// Raising one's own nice value needs no privilege; if it
			// fails the work still runs, at normal priority.
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
			return
		}
		runtime.UnlockOSThread()
		runtime.Gosched()
	}
}
