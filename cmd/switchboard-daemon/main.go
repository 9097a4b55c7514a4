// Switchboard-daemon is Switchboard without its tray: the daemon (MCP
// server, supervisor, control socket) and the CLI, built without cgo. It is
// the macOS build (`make cross`): Fyne's macOS driver needs cgo and Apple's
// SDK, which a Linux machine does not have. `switchboard-daemon` runs as
// `switchboard --headless` does; `switchboard-daemon status` and every
// other command are the CLI's.
package main

import (
	"os"

	"github.com/switchboard-dev/switchboard/app/launch"
)

func main() { os.Exit(launch.Main(os.Args[1:], nil)) }
