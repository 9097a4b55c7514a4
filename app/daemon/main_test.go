package daemon

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// controlClientEnv, when set, makes this test binary a control-socket
// client instead of the tests: an agent's process that calls the person's
// control socket (TestControlSocketRefusesAgents). It prints what the
// socket answered.
const controlClientEnv = "SBTEST_CONTROL_SOCKET"

// TestMain lets this test binary be the sandbox helper of the confined
// agents its daemons start, as the switchboard binary is the app's, and a
// control-socket client run by an agent.
func TestMain(m *testing.M) {
	confine.RunHelper(os.Args)
	if path := os.Getenv(controlClientEnv); path != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := control.NewClient(path).Hello(ctx); err != nil {
			fmt.Printf("CONTROL-REFUSED %v\n", err)
		} else {
			fmt.Println("CONTROL-ANSWERED")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
