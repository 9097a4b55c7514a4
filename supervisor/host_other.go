//go:build !unix

package supervisor

import (
	"fmt"
	"os"
)

// RunHost refuses: the agent host runs on Unix only so far (a Windows one,
// over a named pipe with ConPTY, is still to come).
func RunHost(args []string, binary string) int {
	fmt.Fprintln(os.Stderr, "switchboard: the agent host is not available on this system yet")
	return 2
}
