package main

import (
	"os"
	"testing"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// TestMain makes this test binary the sandbox helper, as main makes
// mcpbench: the workspace and agent CLI tests start daemons in process,
// whose agents start confined through it.
func TestMain(m *testing.M) {
	confine.RunHelper(os.Args)
	os.Exit(m.Run())
}
