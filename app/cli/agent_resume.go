package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// agentResume starts again the agent of a session that ended with the app
// (quit, crash, kill), on its own conversation and in its own worktree.
func agentResume(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("agent resume", "agent resume SESSION [--cols N --rows N] [--yes] [--json]")
	yes := fs.Bool("yes", false, "resume even if a person revoked the session's token while it ran (it gets a new one)")
	cols := fs.Int("cols", 0, "terminal columns (default 120)")
	rows := fs.Int("rows", 0, "terminal rows (default 40)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(c.env.Stderr, "switchboard agent resume: a SESSION is required")
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: fs.Arg(0), Cols: *cols, Rows: *rows, ConfirmRevoked: *yes})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s\n", out.SessionID)
	fmt.Fprintf(c.env.Stderr, "%s resumed (pid %d); recording %s\n", out.Profile, out.PID, out.Recording)
	if ws := out.Workspace; ws != nil {
		fmt.Fprintf(c.env.Stderr, "It works in %s, on branch %s, as before.\n", ws.Path, ws.Branch)
	}
	return nil
}
