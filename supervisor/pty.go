// Package supervisor runs agent CLIs in pseudo-terminals that Switchboard
// watches. It knows nothing of MCP or the GUI; what it must tell the rest of
// the program goes through narrow interfaces wired by main.
package supervisor

import (
	"context"
	"fmt"
)

// Spec describes a command to run on a PTY.
type Spec struct {
	Path string
	Args []string
	Dir  string
	Env  []string
	// Cols and Rows are the terminal size; 0 means 80×24.
	Cols, Rows uint16
	// box confines it and holds its processes (sandbox.go); the zero box
	// starts it as it is.
	box box
}

// Start starts spec on a new PTY. The caller reads the terminal's output
// from PTY() and writes input to it.
func Start(spec Spec) (*Process, error) {
	master, slave, err := openPTY(spec.Cols, spec.Rows)
	if err != nil {
		return nil, fmt.Errorf("start %s on a pty: %w", spec.Path, err)
	}
	p, err := startOn(spec, master, slave)
	// The child has its own copy; ours would keep the terminal open after
	// it exits, and the reader would never see the end.
	slave.Close()
	if err != nil {
		master.Close()
		return nil, err
	}
	return p, nil
}

// Done is closed when the child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the child to exit, or for ctx, and returns its exit code
// (-1 when killed by a signal).
func (p *Process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return p.exitCode()
}
