package cli

// A packet's conflicts with its target branch: the line `work get` prints,
// `work conflicts`, the hunks, and `work rebase`, the packet brought onto
// its target's tip.

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// conflictText says in a line what the conflict watch knows of a packet.
func conflictText(c *mcpserver.PacketConflicts) string {
	switch {
	case c.Error != "":
		return "not known: " + cell(c.Error, 0)
	case c.Clean():
		return fmt.Sprintf("none: applies to %s at %s", cell(c.TargetBranch, 0), shortHash(c.Target))
	}
	files := make([]string, len(c.Files))
	for i, f := range c.Files {
		files[i] = cell(f, 0)
	}
	return fmt.Sprintf("conflicts with %s in %s (%s at %s)", cell(c.TargetBranch, 0), strings.Join(files, ", "), cell(c.TargetBranch, 0), shortHash(c.Target))
}

// printConflicts prints the conflict line of work get, when the packet has
// one, and where to see the hunks.
func (c *cli) printConflicts(pktID string, st *mcpserver.PacketConflicts) {
	if st == nil {
		return
	}
	c.printf("%-13s %s\n", "Conflicts:", conflictText(st))
	if st.Conflicting() {
		c.printf("%-13s switchboard work conflicts %s\n", "", pktID)
	}
}

// workConflicts prints the conflicting hunks of a packet with its target.
func workConflicts(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("work conflicts", "work conflicts PKT [--send-back] [--json]")
	asJSON := fs.Bool("json", false, "print the status and the files as JSON")
	sendBack := fs.Bool("send-back", false, "send the packet back to its agent with the conflicts as its review (request_changes that does not use up an attempt)")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *sendBack {
		out, err := call(ctx, c, mcpserver.MethodWorkSendBackConflicts, mcpserver.WorkConflictHunksArgs{PacketID: fs.Arg(0)})
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(out)
		}
		c.printf("%s sent back to its agent with its conflicts as the review (%s, attempt %d of %d kept)\n", out.Packet.ID, out.Packet.State, out.Packet.Attempt+1, out.Packet.MaxAttempts)
		return nil
	}
	out, err := call(ctx, c, mcpserver.MethodWorkConflictHunks, mcpserver.WorkConflictHunksArgs{PacketID: fs.Arg(0)})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s\n", conflictText(&out.Status))
	for _, f := range out.Files {
		// A file's text is the repository's: made safe for the
		// terminal, its columns kept.
		c.printf("\n== %s\n", cell(f.Path, 0))
		for _, m := range f.Messages {
			c.printf("%s\n", cell(m, 0))
		}
		if f.Note != "" {
			c.printf("(%s)\n", cell(f.Note, 0))
		}
		for _, h := range f.Hunks {
			c.printf("@@ line %d\n%s", h.Line, lines(h.Text))
		}
	}
	return nil
}

// workRebase rebases a packet waiting to land onto its target's tip, on a
// new branch (work.rebase).
func workRebase(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("work rebase", "work rebase PKT [--json]")
	asJSON := fs.Bool("json", false, "print the packet, the new branch and its range as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodWorkRebase, mcpserver.WorkConflictHunksArgs{PacketID: fs.Arg(0)})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s rebased onto %s at %s: its commits are on %s, up to %s (the agent's branch is as it was)\n",
		out.Packet.ID, cell(out.Packet.Changes.BaseBranch, 0), shortHash(out.Onto), cell(out.Branch, 0), shortHash(out.Head))
	return nil
}
