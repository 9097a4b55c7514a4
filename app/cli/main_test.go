package cli

import (
	"os"
	"testing"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// TestMain lets this test binary be the sandbox helper of the confined
// agents its daemons start, as the switchboard binary is the app's.
func TestMain(m *testing.M) {
	confine.RunHelper(os.Args)
	os.Exit(m.Run())
}
