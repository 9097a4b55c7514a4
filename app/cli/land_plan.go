package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// printLandPlan prints what landing a packet would do (work.land_plan):
// the target branch and mode, the commits by subject line and the files,
// as the GUI's Land dialog shows them. Nothing moves.
func printLandPlan(ctx context.Context, c *cli, in mcpserver.WorkLandArgs, asJSON bool) error {
	p, err := call(ctx, c, mcpserver.MethodWorkLandPlan, in)
	if err != nil {
		return err
	}
	if asJSON {
		return c.printJSON(p)
	}
	for _, l := range landPlanLines(p) {
		c.printf("%s\n", l)
	}
	fmt.Fprintf(c.env.Stderr, "Nothing was moved. Land it with: switchboard land %s --mode %s\n", p.PacketID, p.Mode)
	return nil
}

// landPlanLines are a plan in lines for a terminal: what an agent wrote
// (subjects, paths) goes through cell.
func landPlanLines(p mcpserver.LandPlanResult) []string {
	head := fmt.Sprintf("Land %s onto %s (at %s) by %s", p.PacketID, p.Target, shortHash(p.TargetCommit), p.Mode)
	if p.Remote != "" {
		head = fmt.Sprintf("Push %s to %s and open a pull request into %s", cell(p.Branch, 0), p.Remote, p.Target)
	}
	if p.Mode == p.DefaultMode {
		head += " (the repository's default)"
	}
	lines := []string{head}
	if len(p.Commits) == 0 {
		return append(lines, p.Target+" already holds every commit of it: there is nothing to land.")
	}
	lines = append(lines, fmt.Sprintf("%d commits:", len(p.Commits)+p.MoreCommits))
	if p.MoreCommits > 0 {
		lines = append(lines, fmt.Sprintf("  … %d older ones", p.MoreCommits))
	}
	for _, cm := range p.Commits {
		lines = append(lines, "  "+shortHash(cm.Commit)+"  "+cell(cm.Subject, 0))
	}
	lines = append(lines, fmt.Sprintf("%d files:", len(p.Files)+p.MoreFiles))
	for _, f := range p.Files {
		path := cell(f.Path, 0)
		if f.OldPath != "" {
			path = cell(f.OldPath, 0) + " -> " + path
		}
		lines = append(lines, "  "+f.Status+"  "+path)
	}
	if p.MoreFiles > 0 {
		lines = append(lines, fmt.Sprintf("  … and %d more", p.MoreFiles))
	}
	return lines
}
