package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// workReviewBy makes a session a packet's reviewer (work.assign_reviewer),
// or, with --none, takes the assignment away: the person's word that
// this session may judge that packet. It prints the packet and its
// reviewer.
func workReviewBy(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("work review-by", "work review-by PKT SESSION|--none [--json]")
	none := fs.Bool("none", false, "no session: a person reviews the packet")
	asJSON := fs.Bool("json", false, "print the packet as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	ses := ""
	switch {
	case *none && fs.NArg() == 1:
	case !*none && fs.NArg() == 2:
		ses = fs.Arg(1)
	default:
		fmt.Fprintln(c.env.Stderr, "switchboard work review-by: give the packet and a session, or the packet and --none")
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodWorkAssignReviewer, mcpserver.AssignReviewerArgs{PacketID: fs.Arg(0), SessionID: ses})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	if out.Packet.Reviewer == "" {
		c.printf("%s reviewed by a person\n", out.Packet.ID)
		return nil
	}
	c.printf("%s reviewed by session %s\n", out.Packet.ID, out.Packet.Reviewer)
	return nil
}
