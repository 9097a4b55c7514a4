package app

import (
	"context"
	"log/slog"
	"time"

	"fyne.io/fyne/v2"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Core is the running Switchboard that the GUI shows and acts on; the daemon
// is one. Every change the GUI makes goes through the registry, as the
// operator over the "gui" transport, so it is checked and audited like any
// other call.
type Core interface {
	Backend
	Registry() *mcpserver.Registry
	// Agents is the supervisor, for the live terminal views.
	Agents() *supervisor.Supervisor
	// AllowOrigins are the browser origins the flags accept besides
	// loopback ones (those saved in Settings come on top).
	AllowOrigins() []string
	// Listen is where the MCP listener was bound, and where that address
	// came from.
	Listen() (mcpserver.ListenAddr, daemon.ListenSource)
}

// callTimeout bounds a GUI call: a registry call is one transaction, but
// a person must never face a frozen menu.
const callTimeout = 10 * time.Second

// gui holds what the tray and the windows share.
type gui struct {
	app  fyne.App
	core Core
	log  *slog.Logger
	quit func()

	// The open windows, nil when closed; on the Fyne goroutine only.
	sessions *sessionsWindow
	work     *workWindow
	audit    *auditWindow
	settings *settingsWindow

	// Every open window that place gave a size, to remember at quit.
	placed map[fyne.Window]windowPlace

	startup startupConfig // where the start-at-login entry is (startup.go)
}

// invoke runs the method name with in as the person at the screen and
// returns its result: the handler's own value, with the types the compiler
// checks against the method's.
func invoke[In, Out any](g *gui, name mcpserver.Name[In, Out], in In) (Out, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return mcpserver.Invoke(ctx, g.core.Registry(), mcpserver.Operator, mcpserver.TransportGUI, name, in)
}
