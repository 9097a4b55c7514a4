package mcpserver

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/coretest"
)

// stores opens each test's store on the run's engine: with
// SWITCHBOARD_STORE_SUITE=postgres a schema of a real PostgreSQL server
// that TestMain starts.
var stores coretest.Stores

func TestMain(m *testing.M) { coretest.Main(m, &stores) }
