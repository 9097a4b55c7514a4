package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// runDiff prints a packet's commits (pkt_…) or a session's worktree as it
// is now (ses_…), git-style.
func runDiff(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("diff", "diff PKT|SES [--stat] [--json]")
	stat := fs.Bool("stat", false, "the files changed and their line counts alone")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	id := fs.Arg(0)
	var out mcpserver.DiffResult
	var err error
	switch {
	case strings.HasPrefix(id, "pkt_"):
		out, err = call(ctx, c, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: id, Stat: *stat})
	case strings.HasPrefix(id, "ses_"):
		out, err = call(ctx, c, mcpserver.MethodSessionDiff, mcpserver.SessionDiffArgs{SessionID: id})
	default:
		fmt.Fprintf(c.env.Stderr, "switchboard diff: %q is neither a packet (pkt_…) nor a session (ses_…)\n", id)
		return errUsage
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	if *stat {
		if out.Stat == nil {
			fmt.Fprintln(c.env.Stderr, "switchboard diff: --stat is for packets; a session's diff follows")
		} else {
			tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 1, ' ', tabwriter.AlignRight)
			for _, f := range out.Stat.Files {
				name := cell(f.Path, 4096)
				if f.OldPath != "" {
					name = cell(f.OldPath, 4096) + " => " + name
				}
				if f.Added < 0 {
					fmt.Fprintf(tw, "%s\tbinary\t\t\n", name)
					continue
				}
				fmt.Fprintf(tw, "%s\t+%d\t-%d\t\n", name, f.Added, f.Deleted)
			}
			tw.Flush()
			c.printf("%d files changed, %d insertions(+), %d deletions(-)\n", len(out.Stat.Files), out.Stat.Added, out.Stat.Deleted)
			return nil
		}
	}
	// The diff is the repository's own text, printed as git prints it: to
	// a pipe or a file byte for byte (switchboard diff PKT | git apply),
	// to a terminal with the escape sequences of a file's content cut so
	// they cannot drive it. The new files a diff does not show are said
	// on stderr, out of the patch's way.
	if toTerminal(c.env.Stdout) {
		c.printf("%s", lines(out.Diff))
	} else {
		io.WriteString(c.env.Stdout, out.Diff)
	}
	for _, u := range out.Untracked {
		fmt.Fprintf(c.env.Stderr, "new file (not yet committed): %s\n", cell(u, 4096))
	}
	return nil
}
