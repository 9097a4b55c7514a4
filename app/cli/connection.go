package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// runConnection shows and changes the connection settings kept in the
// database, as Settings ▸ Connection does: the listen address (used from
// the next start unless --mcp-http-addr is given) and the browser origins
// (used at once).
func runConnection(ctx context.Context, c *cli, args []string) error {
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	var saved mcpserver.ConnectionSettings
	var err error
	switch sub {
	case "show":
		fs := c.newFlags("connection show", "connection [show] [--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		if saved, err = call(ctx, c, mcpserver.MethodConnectionGet, mcpserver.NoArgs{}); err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(saved)
		}
	case "set":
		fs := c.newFlags("connection set", "connection set [--listen ADDR] [--origin URL]... [--no-origins] [--json]")
		listen := fs.String("listen", "", "the listen `ADDR` from the next start: a port, a loopback host:port, off, or default")
		var origins listFlags
		fs.Var(&origins, "origin", "a browser origin `URL` to allow besides loopback ones, scheme://host[:port] (repeatable; replaces the saved list)")
		none := fs.Bool("no-origins", false, "allow loopback origins only")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 || (*none && len(origins) > 0) {
			fs.Usage()
			return errUsage
		}
		if saved, err = call(ctx, c, mcpserver.MethodConnectionGet, mcpserver.NoArgs{}); err != nil {
			return err
		}
		listenSet, originsSet := false, *none || len(origins) > 0
		fs.Visit(func(f *flag.Flag) { listenSet = listenSet || f.Name == "listen" })
		if !listenSet && !originsSet {
			fs.Usage()
			return errUsage
		}
		if listenSet {
			saved.ListenAddr = *listen
			if strings.EqualFold(saved.ListenAddr, "default") {
				saved.ListenAddr = ""
			}
		}
		if originsSet {
			saved.AllowOrigins = origins
		}
		if saved, err = call(ctx, c, mcpserver.MethodConnectionPut, saved); err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(saved)
		}
	default:
		fmt.Fprint(c.env.Stderr, "Usage: switchboard connection [show] | connection set [--listen ADDR] [--origin URL]... [--no-origins]\n")
		if sub == "help" {
			return nil
		}
		return errUsage
	}
	listen := saved.ListenAddr
	if listen == "" {
		listen = "default (loopback, on the port of the last run)"
	}
	c.printf("listen address: %s (from the next start, unless --mcp-http-addr is given)\n", listen)
	if len(saved.AllowOrigins) == 0 {
		c.printf("browser origins: loopback only\n")
	} else {
		c.printf("browser origins: loopback, and %s\n", strings.Join(saved.AllowOrigins, ", "))
	}
	return nil
}
