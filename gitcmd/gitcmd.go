// Package gitcmd is the one way Switchboard runs git. Every call goes
// through Run or RunTree: the git binary found on PATH, executed directly
// (never through a shell), pointed at a folder with -C (Run) or at a work
// tree and git folders named outright (RunTree, for a folder an agent can
// write), with hooks and fsmonitor off whatever the repository's
// configuration says (safety.go), in an environment built here from an
// allow-list rather than inherited (env.go), under a deadline, with its
// output bounded and its failures typed. Run also refuses, without starting
// git, the commands that can lose a person's work (see refusal in deny.go):
// people run Switchboard on repositories with uncommitted work in them.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

const (
	// DefaultTimeout bounds a call whose context has no deadline. A hung
	// git (a lock held by an editor, a network remote) must not hang the
	// tray; callers that run hooks which may take longer (a commit with a
	// test suite in pre-commit) pass a context with their own deadline.
	DefaultTimeout = 2 * time.Minute

	// MaxStdout is the most Run keeps of git's standard output. It is large
	// enough for the diff of any change a person would review; past it the
	// call fails with ErrOutputTooLarge rather than return half a diff.
	MaxStdout = 64 << 20

	// maxStderr is how much of the end of git's standard error an Error
	// keeps: git puts the reason last, and hooks can be chatty.
	maxStderr = 16 << 10

	// stopGrace is how long git gets to remove its lock files after
	// SIGTERM before it and its pipes are dropped: a git killed outright
	// leaves index.lock behind and every later call fails until someone
	// deletes it by hand.
	stopGrace = 5 * time.Second
)

// ErrOutputTooLarge is the cause of an Error whose standard output passed
// MaxStdout; git was stopped and the partial output thrown away.
var ErrOutputTooLarge = errors.New("git output larger than the limit")

// Error is a git call that failed: git exited non-zero, or did not run or
// finish (then ExitCode is -1 and Err says why).
type Error struct {
	// Args are the caller's arguments: what follows the folder and the
	// configuration Run puts first.
	Args []string
	// ExitCode is git's exit status, -1 when it did not exit by itself.
	ExitCode int
	// Stderr is the end (at most 16 KiB) of what git wrote to standard error.
	Stderr string
	// Err is the cause when git did not run or finish: the exec failure,
	// the context's error, ErrOutputTooLarge. Nil for a plain non-zero exit.
	Err error
}

// Error names the subcommand and git's last lines of standard error. It
// leaves out the other arguments (a commit message, a path) and never
// includes the environment, which may carry a person's settings.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("git ")
	b.WriteString(Subcommand(e.Args))
	switch {
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	default:
		fmt.Fprintf(&b, ": exit status %d", e.ExitCode)
	}
	if tail := lastLines(e.Stderr, 3); tail != "" {
		b.WriteString(": ")
		b.WriteString(tail)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the exit status of the git call err comes from, and
// false when err is no *Error or git did not exit by itself. Callers use it
// for the commands whose status is an answer (diff --quiet, merge-base
// --is-ancestor, symbolic-ref --quiet), never to read meaning into text.
func ExitCode(err error) (int, bool) {
	var ge *Error
	if errors.As(err, &ge) && ge.ExitCode >= 0 {
		return ge.ExitCode, true
	}
	return 0, false
}

// Run runs git with args in dir and returns its standard output. Standard
// input is empty. See RunInput.
//
// git finds the repository from dir, through whatever .git entry it meets
// on the way up: Run is for the folders the person owns (their checkout,
// the repository's git folder). A folder an agent can write, where that
// entry may have been replaced, is RunTree's.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return run(ctx, folder(dir), nil, limits{stdout: MaxStdout, timeout: DefaultTimeout}, args)
}

// RunInput is Run with stdin as git's standard input (commit -F -,
// hash-object --stdin).
func RunInput(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	if stdin == nil {
		stdin = []byte{}
	}
	return run(ctx, folder(dir), stdin, limits{stdout: MaxStdout, timeout: DefaultTimeout}, args)
}

// RunTree is Run in the work tree t, with its git folders given to git
// outright (see Tree): the work tree's own .git entry is never read.
func RunTree(ctx context.Context, t Tree, args ...string) ([]byte, error) {
	return run(ctx, t.place(), nil, limits{stdout: MaxStdout, timeout: DefaultTimeout}, args)
}

// RunTreeInput is RunTree with stdin as git's standard input.
func RunTreeInput(ctx context.Context, t Tree, stdin []byte, args ...string) ([]byte, error) {
	if stdin == nil {
		stdin = []byte{}
	}
	return run(ctx, t.place(), stdin, limits{stdout: MaxStdout, timeout: DefaultTimeout}, args)
}

// place is where a call runs: the arguments that say so, before the
// caller's, and the variables that go with them.
type place struct {
	args []string
	env  []string
	// err is why the place cannot be used; run reports it with the
	// subcommand before starting git.
	err error
}

// folder is the place "-C dir".
func folder(dir string) place {
	if dir == "" {
		// Without -C git would act on whatever repository the tray's own
		// working directory happens to be in.
		return place{err: errors.New("no folder given")}
	}
	return place{args: []string{"-C", dir}}
}

// limits are MaxStdout and DefaultTimeout, made parameters for the tests.
type limits struct {
	stdout  int
	timeout time.Duration
}

func run(ctx context.Context, at place, stdin []byte, lim limits, args []string) ([]byte, error) {
	if at.err != nil {
		return nil, fmt.Errorf("git %s: %w", Subcommand(args), at.err)
	}
	if len(args) == 0 {
		return nil, errors.New("git: no subcommand given")
	}
	if why := refusal(args); why != "" {
		return nil, fmt.Errorf("git %s: %w: %s", Subcommand(args), ErrRefused, why)
	}
	args = append([]string(nil), args...) // an Error's Args must not change under the caller's feet
	if err := ctx.Err(); err != nil {
		return nil, &Error{Args: args, ExitCode: -1, Err: err}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.timeout)
		defer cancel()
	}

	// The place first (-C before any option that names a path), then
	// safeConfig, then the caller's: refusal has checked only the last.
	full := append(append(append([]string(nil), at.args...), safeConfigArgs()...), args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(environ(os.Environ()), at.env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	// With no Stdin, exec gives git /dev/null: nothing it starts (a hook,
	// a credential helper) can sit waiting for input.
	stdout := &capped{max: lim.stdout}
	stderr := &tail{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	StopAsGroup(cmd, stopGrace)

	err := cmd.Run()
	switch {
	case stdout.overflow:
		return nil, &Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: ErrOutputTooLarge}
	case ctx.Err() != nil && err != nil:
		// Killed on our side: report the deadline or cancel, not the signal.
		return nil, &Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: ctx.Err()}
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Exited() {
			return stdout.buf.Bytes(), &Error{Args: args, ExitCode: ee.ExitCode(), Stderr: stderr.String()}
		}
		return nil, &Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: err}
	}
	return stdout.buf.Bytes(), nil
}

// Subcommand names the git command args run, for messages: "status",
// "worktree add", "stash drop". Global options before it (-c key=value) are
// skipped; the rest of the arguments are left out.
func Subcommand(args []string) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return "(no subcommand)"
	}
	name := args[i]
	if takesAction(name) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
		name += " " + args[i+1]
	}
	return name
}

// takesAction reports whether a command takes an action word after its
// name, which a message needs to tell "worktree add" from "worktree remove".
func takesAction(cmd string) bool {
	switch cmd {
	case "worktree", "stash", "remote", "submodule", "notes", "reflog",
		"bisect", "sparse-checkout", "maintenance", "bundle":
		return true
	}
	return false
}

// lastLines returns the last n non-blank lines of s joined by "; ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "; ")
}

// capped keeps what is written up to max bytes; past that it fails the
// write, which closes the pipe and stops git with SIGPIPE instead of
// reading a runaway output to the end.
type capped struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.overflow = true
		return 0, ErrOutputTooLarge
	}
	return c.buf.Write(p)
}

// tail keeps the last max bytes written to it.
type tail struct {
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) String() string { return string(t.buf) }
