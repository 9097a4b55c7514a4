package app

import (
	"context"
	"log/slog"
	"sync"
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
	// SetShowWindow sets what a second launch of the app asks for: the
	// main window in front.
	SetShowWindow(show func() bool)
	// Database is the team database the store is on ("" for this
	// machine's file) and who named it (daemon.DatabaseFrom*).
	Database() (conn, from string)
	// ConnectDatabase tries a team database and saves it for the next
	// start; DisconnectDatabase forgets the saved one.
	ConnectDatabase(conn string) error
	DisconnectDatabase() error
	// RequestRestart has the program start again once the GUI quits.
	RequestRestart()
}

// callTimeout bounds a GUI call: a registry call is one transaction, but
// a person must never face a frozen menu.
const callTimeout = 10 * time.Second

// landTimeout bounds a landing from the GUI: work.land's own time (git
// merges in a temporary worktree of a repository of any size), not a
// view's.
const landTimeout = 2 * time.Minute

// gui holds what the tray and the windows share.
type gui struct {
	app  fyne.App
	core Core
	log  *slog.Logger
	quit func()
	// noTray is set when no tray host ran at start: the main window is
	// then the only way in, and closing it asks whether to quit.
	noTray bool

	// The open windows, nil when closed; on the Fyne goroutine only.
	sessions *sessionsWindow
	audit    *auditWindow
	settings *settingsWindow
	// changes are the main window's Changes views, one per packet or
	// session (mainwin_changes.go), while it is open.
	changes map[changesSource]*changesView

	// Every open window that place gave a size, to remember at quit.
	placed map[fyne.Window]windowPlace
	// Every open window's line about the store (storehealth.go).
	storeLines map[fyne.Window]storeLine

	// health is whether the store answers (storehealth.go); any goroutine.
	health storeHealth
	// notifier sends the desktop notifications (tray_notify.go); nil
	// sends them through Fyne, whose notifications open nothing.
	notifier notifier
	// tooltip sets the tray icon's tooltip; nil where there is no tray
	// (tests).
	tooltip func(string)

	startup startupConfig // where the start-at-login entry is (startup.go)

	// busy counts the calls background runs; tests wait on it.
	busy sync.WaitGroup
}

// background runs fn off the Fyne goroutine: a call that may take longer
// than a frame (a landing) must not freeze every window meanwhile. fn
// hands its outcome back through fyne.Do.
func (g *gui) background(fn func()) {
	g.busy.Add(1)
	go func() {
		defer g.busy.Done()
		fn()
	}()
}

// invoke runs the method name with in as the person at the screen and
// returns its result: the handler's own value, with the types the compiler
// checks against the method's.
func invoke[In, Out any](g *gui, name mcpserver.Name[In, Out], in In) (Out, error) {
	return call(g, mcpserver.TransportGUI, name, in)
}

// view is invoke for the GUI's own refresh reads: a window or the tray
// re-reading what it shows, on a timer, after a change or as it opens.
// They are audited like every call, but as views
// (mcpserver.TransportGUIView), which the audit shows only when asked: an
// idle tray with two windows open would otherwise fill the log with
// itself. What a person's click reads or changes goes through invoke.
// The registry refuses a method that writes when it comes this way.
func view[In, Out any](g *gui, name mcpserver.Name[In, Out], in In) (Out, error) {
	return call(g, mcpserver.TransportGUIView, name, in)
}

// call runs the method name over transport t as the person at the screen.
func call[In, Out any](g *gui, t mcpserver.Transport, name mcpserver.Name[In, Out], in In) (Out, error) {
	return callWithin(g, callTimeout, t, name, in)
}

// callWithin is call bounded by timeout instead of callTimeout, for the
// methods that take longer than one transaction. Every call of the GUI
// comes this way, so that its outcome tells whether the store answers.
func callWithin[In, Out any](g *gui, timeout time.Duration, t mcpserver.Transport, name mcpserver.Name[In, Out], in In) (Out, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := mcpserver.Invoke(ctx, g.core.Registry(), mcpserver.OperatorPrincipal(), t, name, in)
	g.noteStore(err)
	return out, err
}
