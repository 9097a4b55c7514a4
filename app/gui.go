package app

import (
	"context"
	"encoding/json"
	"fmt"
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
}

// call runs a registry method as the person at the screen and decodes its
// result into out (which may be nil).
func (g *gui) call(method string, args, out any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("encode arguments of %s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res := g.core.Registry().Invoke(ctx, mcpserver.Operator, mcpserver.TransportGUI, method, b)
	if res.Err != nil {
		return res.Err
	}
	if out == nil {
		return nil
	}
	// Results are typed values; a JSON round trip keeps the windows
	// decoupled from which concrete type each method returns.
	v, err := json.Marshal(res.Value)
	if err != nil {
		return fmt.Errorf("encode result of %s: %w", method, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("decode result of %s: %w", method, err)
	}
	return nil
}
