package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// runLand brings a done packet's commits onto its base branch and prints
// the base branch's new tip; a refusal (merge_conflict,
// checkout_in_the_way, …) exits non-zero with its code and moved nothing.
func runLand(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("land", "land PKT [--mode merge|squash] [--json]")
	mode := fs.String("mode", "merge", "merge (a merge commit of the packet's commits) or squash (one commit of their changes)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: fs.Arg(0), Mode: *mode})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s\n", out.Commit)
	ch := out.Packet.Changes
	fmt.Fprintf(c.env.Stderr, "Landed %s on %s (%s, %d files).\n", out.Packet.ID, ch.BaseBranch, out.Packet.Landed.Mode, out.Files)
	return nil
}
