package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// runLand brings a done packet's commits onto its base branch and prints
// the base branch's new tip, or, for a pull request, its address (the
// commit pushed when no pull request could be opened); a refusal
// (merge_conflict, depends_on_packet, checkout_in_the_way, …) exits
// non-zero with its code and moved nothing. With --dry-run it prints what
// the landing would do (work.land_plan) and does none of it.
func runLand(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("land", "land PKT [--mode merge|squash|rebase|pull-request] [--dry-run] [--json]")
	mode := fs.String("mode", "", "merge (a merge commit of the packet's commits), squash (one commit of their changes), rebase (the commits replayed on the base, which fast-forwards) or pull-request (push the branch, open a pull request with gh; the base does not move); default: the repository's setting, else merge")
	dryRun := fs.Bool("dry-run", false, "say what landing would do (target branch, mode, commits, files) and do none of it")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *dryRun {
		return printLandPlan(ctx, c, mcpserver.WorkLandArgs{PacketID: fs.Arg(0), Mode: *mode}, *asJSON)
	}
	out, err := call(ctx, c, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: fs.Arg(0), Mode: *mode})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	ch, l := out.Packet.Changes, out.Packet.Landed
	if l.Mode == "pull-request" {
		if out.URL != "" {
			c.printf("%s\n", out.URL)
			fmt.Fprintf(c.env.Stderr, "Pushed %s to %s and opened a pull request into %s.\n", l.Branch, l.Remote, ch.BaseBranch)
			return nil
		}
		c.printf("%s\n", out.Commit)
		fmt.Fprintf(c.env.Stderr, "Pushed %s to %s; no pull request opened: %s\n", l.Branch, l.Remote, out.Note)
		return nil
	}
	c.printf("%s\n", out.Commit)
	fmt.Fprintf(c.env.Stderr, "Landed %s on %s (%s, %d files).\n", out.Packet.ID, ch.BaseBranch, l.Mode, out.Files)
	return nil
}
