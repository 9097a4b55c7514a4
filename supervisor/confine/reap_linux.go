package confine

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// reap runs the agent as a child of this process, made a child subreaper
// first: an orphan of the agent (a double fork, a daemon) is reparented
// here rather than to init, so everything the agent started stays below
// this process, however it left the agent's session. The terminal's
// signals reach the agent by themselves (it shares this process's session
// and, until it makes its own, its group), so this process catches and
// drops them; SIGUSR1, a stop's kill, ends everything it holds. When the
// agent exits, the rest is ended too and this process exits with its
// status. It never returns but with an error before the agent started.
func reap(path string, argv []string) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("child subreaper: %w", err)
	}
	sigs := make(chan os.Signal, 16)
	// Caught, not ignored: an ignored signal would stay ignored in the
	// agent across exec, and Ctrl-C would not reach it.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGCHLD)
	// From this (locked, and under Landlock restricted) thread: the
	// agent inherits the restriction.
	agent, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		return fmt.Errorf("start the agent: %w", err)
	}
	for sig := range sigs {
		if sig == syscall.SIGUSR1 {
			endAll()
			os.Exit(128 + int(syscall.SIGKILL))
		}
		if sig != syscall.SIGCHLD {
			continue
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			if pid == agent {
				endAll()
				if ws.Signaled() {
					os.Exit(128 + int(ws.Signal()))
				}
				os.Exit(ws.ExitStatus())
			}
		}
	}
	return errors.New("unreachable")
}

// endAll kills this process's children until it has none: each one
// killed hands its own children to this process (a subreaper), which the
// next round kills, so the rounds end once the whole tree is gone.
func endAll() {
	for range 1000 {
		kids := children()
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}

// children lists this process's children, from every thread's children
// file (a child belongs to the thread that forked it; orphans to the
// thread group's leader).
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
