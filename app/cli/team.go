package cli

import (
	"context"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func runTeam(ctx context.Context, c *cli, args []string) error {
	sub := "status"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	if sub != "status" {
		return fmt.Errorf("unknown team command %q (team status)", sub)
	}
	fs := c.newFlags("team status", "team status [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	st, err := call(ctx, c, mcpserver.MethodTeamStatus, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(st)
	}
	if !st.Team {
		c.printf("Not in team mode: the store is %s, this instance's alone.\n", st.Database)
		c.printf("Start with --database postgres://… (or SWITCHBOARD_DATABASE_URL) to share a queue.\n")
		return nil
	}
	c.printf("Database:  %s\n", st.Database)
	c.printf("Instance:  %s\n", st.Instance)
	c.printf("Queue:     %s\n", queueLine(st.Queue))
	c.printf("\n")
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tHOST\tSTATE\tSESSIONS\tSEEN\tVERSION")
	now := time.Now()
	for _, in := range st.Instances {
		id := in.ID
		if in.Self {
			id += " (this one)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s ago\t%s\n", id, in.Host, in.State, in.Sessions,
			now.Sub(in.SeenAt).Round(time.Second), orDash(in.Version))
	}
	return tw.Flush()
}

// queueLine is the packets by state, in the order they move.
func queueLine(q map[store.PacketState]int) string {
	order := []store.PacketState{store.PacketQueued, store.PacketClaimed, store.PacketInProgress,
		store.PacketInReview, store.PacketDone, store.PacketFailed, store.PacketCancelled}
	out := ""
	for _, s := range order {
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%d %s", q[s], s)
	}
	var rest []string
	for s := range q {
		if !slices.Contains(order, s) {
			rest = append(rest, string(s))
		}
	}
	slices.Sort(rest)
	for _, s := range rest {
		out += fmt.Sprintf(", %d %s", q[store.PacketState(s)], s)
	}
	return out
}
