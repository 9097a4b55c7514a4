package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
)

// HelperArg is the hidden subcommand of the switchboard binary (and of
// every test binary that starts confined agents: see RunHelper) that
// prepares the agent's process and then becomes the agent, with exec: it
// takes the terminal as its controlling terminal in a session of its own
// (inside bubblewrap, whose own session has none), and applies the
// Landlock ruleset where bubblewrap cannot run. Go cannot run code between
// fork and exec, so this step is a program of its own.
const HelperArg = "sandbox-exec"

// HelperOptions are what the helper does before it execs the command.
type HelperOptions struct {
	// Session makes the helper the leader of a new session with its
	// standard input, the agent's terminal, as the controlling terminal.
	Session bool `json:"session,omitempty"`
	// Landlock, when set, is the policy the helper restricts itself to.
	Landlock *Checked `json:"landlock,omitempty"`
	// Scope restricts the agent's IPC with Landlock's scopes alone (ABI
	// 6 and later), inside bubblewrap: the network namespace is shared,
	// and with it every abstract Unix socket (a session bus's usual
	// address) that a mount namespace cannot hide.
	Scope bool `json:"scope,omitempty"`
	// Reap keeps the helper as the agent's parent and a child subreaper
	// (where neither a PID namespace nor a cgroup can hold the agent):
	// every orphan of the agent comes back to it, and when the agent
	// exits, or at SIGUSR1 (a stop's kill), it kills all it holds and
	// exits with the agent's status.
	Reap bool `json:"reap,omitempty"`
}

// HelperArgs returns the arguments after the binary's path that run
// command (path and args) under opts.
func HelperArgs(opts HelperOptions, path string, args []string) []string {
	b, _ := json.Marshal(opts) // plain strings and bools: cannot fail
	return append([]string{HelperArg, string(b), "--", path}, args...)
}

// RunHelper runs the helper when args (os.Args) ask for it, and never
// returns then: it becomes the command or exits 126 with the reason on
// standard error, which is the agent's terminal. It returns at once for
// any other arguments. main and the TestMain of packages that start
// confined agents call it first.
func RunHelper(args []string) {
	if len(args) < 2 || args[1] != HelperArg {
		installed.Store(true)
		return
	}
	err := helper(args[2:])
	fmt.Fprintf(os.Stderr, "switchboard: the agent cannot start confined: %v\r\n", err)
	os.Exit(126)
}

func helper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: sandbox-exec OPTIONS -- COMMAND [ARG...]")
	}
	var opts HelperOptions
	if err := json.Unmarshal([]byte(args[0]), &opts); err != nil {
		return fmt.Errorf("read options: %w", err)
	}
	path, err := exec.LookPath(args[2])
	if err != nil {
		return err
	}
	return becomeAgent(opts, path, args[2:])
}

// installed is set once this binary has called RunHelper: only then may it
// name itself as the helper. A binary without the call (a test binary of
// a package that forgot it) would take the helper's arguments for its own
// and run in its place, tests and all.
var installed atomic.Bool

// HelperInstalled reports whether this binary answers HelperArg.
func HelperInstalled() bool { return installed.Load() }
