// Switchboard is a desktop tray app that supervises AI coding agents and
// serves them work over a loopback MCP server.
package main

import (
	"os"

	"github.com/switchboard-dev/switchboard/app"
)

func main() { os.Exit(app.Main(os.Args[1:])) }
