// Switchboard-sandbox is Switchboard's sandbox helper on its own: the
// program each confined agent starts through (confine.HelperArg), which
// takes the agent's terminal, applies Landlock and execs the agent. The
// switchboard binary is the helper too, but it starts in about 30 ms
// (the GUI's packages initialise first); this one in about 4, and it runs
// once for every agent started. The supervisor uses it when it lies beside
// the switchboard binary, and the binary itself otherwise.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

func main() {
	confine.RunHelper(os.Args)
	fmt.Fprintf(os.Stderr, "switchboard-sandbox: Switchboard starts this program for its agents (%s); it is not run by hand\n", confine.HelperArg)
	os.Exit(2)
}
