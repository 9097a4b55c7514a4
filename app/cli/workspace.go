package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/workspace"
)

func runWorkspace(ctx context.Context, c *cli, args []string) error {
	return c.dispatch(ctx, args, c.workspaceUsage, map[string]func(context.Context, *cli, []string) error{
		"list":    workspaceList,
		"discard": workspaceDiscard,
	})
}

func (c *cli) workspaceUsage() {
	fmt.Fprint(c.env.Stderr, `Usage: switchboard workspace COMMAND
  list [--json]             the agents' worktrees: session, repository, path, branch, base, state, commits not landed, uncommitted files, disk use
  discard SES [--yes]       take an ended session's worktree away: what is uncommitted is committed first and the branch kept
`)
}

func workspaceList(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("workspace list", "workspace list [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	out, err := call(ctx, c, mcpserver.MethodWorkspaceList, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tREPOSITORY\tBRANCH\tBASE\tSTATE\tUNLANDED\tUNCOMMITTED\tDISK\tPATH")
	for _, e := range out.Workspaces {
		state, unlanded, dirty, disk := "ok", "-", "-", "-"
		if e.DiskBytes > 0 {
			disk = workspace.FormatBytes(e.DiskBytes)
		}
		switch {
		case e.Gone:
			state = "removed"
		case e.State == nil:
			state = "unreadable: " + cell(e.Problem, 60)
		default:
			unlanded, dirty = fmt.Sprint(e.State.Unlanded), fmt.Sprint(len(e.State.Changed))
			if e.State.Landed && !e.State.Dirty {
				state = "landed"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.SessionID, e.RepositoryID, cell(e.Workspace.Branch, 0),
			cell(e.Workspace.BaseBranch, 0), state, unlanded, dirty, disk, cell(e.Workspace.Path, 0))
	}
	return tw.Flush()
}

// workspaceDiscard says what the discard will take away from the folder,
// and does it only with --yes.
func workspaceDiscard(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("workspace discard", "workspace discard SES [--yes]")
	yes := fs.Bool("yes", false, "discard without asking")
	if err := parse(fs, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	id := fs.Arg(0)
	if !*yes {
		list, err := call(ctx, c, mcpserver.MethodWorkspaceList, mcpserver.NoArgs{})
		if err != nil {
			return err
		}
		for _, e := range list.Workspaces {
			if e.SessionID != id {
				continue
			}
			size := ""
			if e.DiskBytes > 0 {
				size = " (" + workspace.FormatBytes(e.DiskBytes) + ")"
			}
			fmt.Fprintf(c.env.Stderr, "Discarding removes %s%s.\n", cell(e.Workspace.Path, 0), size)
			if e.State != nil {
				fmt.Fprintf(c.env.Stderr, "Its %d uncommitted files are committed first; its %d commits not on %s stay on branch %s.\n",
					len(e.State.Changed), e.State.Unlanded, cell(e.Workspace.BaseBranch, 0), cell(e.Workspace.Branch, 0))
			}
			fmt.Fprintln(c.env.Stderr, "Run again with --yes to do it.")
			return errUsage
		}
		return fmt.Errorf("session %s has no worktree (switchboard workspace list)", id)
	}
	out, err := call(ctx, c, mcpserver.MethodWorkspaceDiscard, mcpserver.WorkspaceDiscardArgs{SessionID: id})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Stderr, "Removed %s; branch %s keeps its commits.\n", cell(out.Workspace.Path, 0), cell(out.Workspace.Branch, 0))
	return nil
}
