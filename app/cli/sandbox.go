package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// runSandbox shows and changes what the person adds to every agent's
// confinement: paths hidden from it, and the cap of its recording. Both
// apply to the next agent started.
func runSandbox(ctx context.Context, c *cli, args []string) error {
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	var saved mcpserver.SandboxSettings
	var err error
	switch sub {
	case "show":
		fs := c.newFlags("sandbox show", "sandbox [show] [--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		if saved, err = call(ctx, c, mcpserver.MethodSandboxGet, mcpserver.NoArgs{}); err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(saved)
		}
	case "set":
		fs := c.newFlags("sandbox set", "sandbox set [--hide PATH]... [--unhide PATH]... [--recording-cap MIB] [--json]")
		var hide, unhide listFlags
		fs.Var(&hide, "hide", "an absolute `PATH` no confined agent may see (repeatable)")
		fs.Var(&unhide, "unhide", "a `PATH` hidden before, shown again (repeatable)")
		capMiB := fs.Int("recording-cap", -1, "each session's recording at most `MIB` MiB; 0 for the default (256)")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 || len(hide)+len(unhide) == 0 && *capMiB < 0 {
			fs.Usage()
			return errUsage
		}
		if saved, err = call(ctx, c, mcpserver.MethodSandboxGet, mcpserver.NoArgs{}); err != nil {
			return err
		}
		saved.Hidden = slices.DeleteFunc(append(saved.Hidden, hide...), func(p string) bool { return slices.Contains(unhide, p) })
		if *capMiB >= 0 {
			saved.RecordingCapMiB = *capMiB
		}
		if saved, err = call(ctx, c, mcpserver.MethodSandboxPut, saved); err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(saved)
		}
	default:
		fmt.Fprint(c.env.Stderr, "Usage: switchboard sandbox [show] | sandbox set [--hide PATH]... [--unhide PATH]... [--recording-cap MIB]\n")
		if sub == "help" {
			return nil
		}
		return errUsage
	}
	c.printf("hidden from every agent, besides Switchboard's folders and your keys: %s\n", cmpList(saved.Hidden, "nothing more"))
	if saved.RecordingCapMiB == 0 {
		c.printf("recording cap: 256 MiB a session (the default)\n")
	} else {
		c.printf("recording cap: %d MiB a session\n", saved.RecordingCapMiB)
	}
	return nil
}

// cmpList joins list, or says none.
func cmpList(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}
