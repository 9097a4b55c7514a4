package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/internal/autostart"
)

// runAutostart turns start at login on or off, or says which it is. It
// works on the autostart entry in the person's config folder alone, so it
// needs neither a running Switchboard nor its database.
func runAutostart(_ context.Context, c *cli, args []string) error {
	sub := "status"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	env := autostart.Env{Getenv: c.env.Getenv}
	switch sub {
	case "on", "off":
		fs := c.newFlags("autostart "+sub, "autostart "+sub+" [--force]")
		force := fs.Bool("force", false, "replace or remove the entry even when it was not written by Switchboard, or was edited since")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			fs.Usage()
			return errUsage
		}
		var st autostart.State
		var err error
		if sub == "on" {
			exe, xerr := autostart.Executable()
			if xerr != nil {
				return xerr
			}
			if autostart.Transient(exe) {
				fmt.Fprintf(c.env.Stderr, "warning: %s is a temporary build (go run); install switchboard and run this again from the installed binary\n", exe)
			}
			st, err = env.Enable(exe, *force)
		} else {
			st, err = env.Disable(*force)
		}
		if err != nil {
			return err
		}
		c.printAutostart(st)
		return nil
	case "status":
		fs := c.newFlags("autostart status", "autostart [status] [--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			fs.Usage()
			return errUsage
		}
		st, err := env.Status()
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(autostartJSON{
				On: st.Enabled, Path: st.Path, Exists: st.Exists, Ours: st.Ours, Edited: st.Edited,
				Exec: st.Exec, ExecMissing: st.ExecMissing,
			})
		}
		c.printAutostart(st)
		return nil
	}
	fmt.Fprint(c.env.Stderr, `Usage: switchboard autostart [status] [--json]   whether Switchboard starts at login
       switchboard autostart on [--force]         start it at login (this binary)
       switchboard autostart off [--force]        do not
`)
	if sub == "help" {
		return nil
	}
	return errUsage
}

// autostartJSON is autostart status --json.
type autostartJSON struct {
	On          bool   `json:"on"`
	Path        string `json:"path"`
	Exists      bool   `json:"exists"`
	Ours        bool   `json:"ours"`
	Edited      bool   `json:"edited"`
	Exec        string `json:"exec,omitempty"`
	ExecMissing bool   `json:"exec_missing"`
}

func (c *cli) printAutostart(st autostart.State) {
	state := "off"
	if st.Enabled {
		state = "on"
	}
	c.printf("autostart: %s\n", state)
	c.printf("entry:     %s", st.Path)
	switch {
	case !st.Exists:
		c.printf(" (none)\n")
	case !st.Ours:
		c.printf(" (not written by Switchboard)\n")
	case st.Edited:
		c.printf(" (edited by hand)\n")
	default:
		c.printf("\n")
	}
	if st.Exists && !st.Enabled {
		c.printf("The entry is there but switched off (Hidden or X-GNOME-Autostart-enabled=false).\n")
	}
	if st.Exec != "" {
		c.printf("starts:    %s\n", st.Exec)
	}
	if st.ExecMissing {
		c.printf("The program it starts no longer exists: run 'switchboard autostart on' from the installed binary.\n")
	}
}
