// Package app is Switchboard's top floor: the tray and its windows, over
// the command line of app/launch.
package app

import (
	"context"
	"log/slog"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/app/launch"
)

// Version is the program's version.
const Version = launch.Version

// Main runs the program with args (without the program name) and returns
// its exit code: the CLI, or the daemon with the tray.
func Main(args []string) int {
	return launch.Main(args, func(ctx context.Context, d *daemon.Daemon, log *slog.Logger) error {
		return RunTray(ctx, d, log)
	})
}
