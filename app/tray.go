package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/godbus/dbus/v5"

	"github.com/switchboard-dev/switchboard/assets"
)

// AppID is the application id: Fyne keys preferences and storage by it, desktops match the
// tray item and notifications to the launcher with it, and FyneApp.toml repeats it.
const AppID = "dev.switchboard.app"

// Tray labels. They are what the user reads and what the end-to-end test clicks by name
// over D-Bus, so they change only together with test/e2e.
const (
	labelEndpointPrefix = "MCP: "
	labelListenerOff    = "MCP listener off"
	labelKeyringPrefix  = "Keyring "
	labelCopyEndpoint   = "Copy MCP endpoint"
	labelCopyToken      = "Copy client token"
	labelQuit           = "Quit"
)

// maxStatusLabel caps a status line in runes: keyring errors can be long D-Bus messages,
// and a tray menu as wide as the screen helps nobody. Settings shows the whole text.
const maxStatusLabel = 60

// keyringUnavailable starts the KeyringState values that get a line of their own in the tray.
const keyringUnavailable = "unavailable"

// Backend is what the tray shows and acts on. The daemon implements it.
//
// The tray calls these on the Fyne thread, which also answers the X11 clipboard and the tray
// menu, so they must answer from memory and never wait on the keyring.
type Backend interface {
	Endpoint() string             // MCP URL, "" when the listener is off
	ClientToken() (string, error) // raw client token to copy
	KeyringState() string         // e.g. "available", "unavailable: timeout"
}

// RunTray runs the Fyne application with its system tray until the user picks Quit or ctx is
// done. It must be called from the main goroutine and blocks. It returns nil on a normal quit,
// whichever of the two caused it.
//
// No window is shown: the tray is the whole interface at start. RunTray returns an error
// without starting Fyne when no tray can appear at all (no display, or on Linux and the BSDs
// no D-Bus session bus for the StatusNotifierItem), so the caller can fall back to running
// headless instead of leaving an invisible process behind.
func RunTray(ctx context.Context, b Backend, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkTrayHost(log); err != nil {
		return err
	}

	icon := fyne.NewStaticResource("app.png", assets.AppIcon())
	// A plain `go build` carries no FyneApp.toml metadata; without a name Fyne titles the
	// tray item with the bare app id, which is what panels show on hover.
	fyneapp.SetMetadata(fyne.AppMetadata{ID: AppID, Name: "Switchboard", Version: Version, Build: 1, Icon: icon})
	a := fyneapp.NewWithID(AppID)
	desk, ok := a.(desktop.App)
	if !ok {
		return errors.New("tray: the Fyne driver in use has no system tray")
	}
	a.SetIcon(icon)
	// The icon is set before the menu: setting the menu starts the tray, which picks up the
	// icon already set. On Linux the bytes must be a PNG (the SNI pixmap is decoded from it).
	desk.SetSystemTrayIcon(fyne.NewStaticResource("tray-idle.png", assets.TrayIdle()))
	desk.SetSystemTrayMenu(trayMenu(a, b, log, a.Quit))

	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			log.Info("tray: quitting", "cause", context.Cause(ctx))
			// Before Run has started, fyne.Do queues the call and the loop runs it first.
			fyne.Do(a.Quit)
		case <-stopped:
		}
	}()

	log.Info("tray: running", "endpoint", b.Endpoint(), "keyring", b.KeyringState())
	a.Run()
	log.Info("tray: stopped")
	return nil
}

// trayMenu builds the tray menu. It only reads the backend and the app, so tests drive it
// with Fyne's test app; quit is what the Quit item calls.
//
// The endpoint is read once, here: the daemon picks its address before the tray starts.
func trayMenu(a fyne.App, b Backend, log *slog.Logger, quit func()) *fyne.Menu {
	endpoint := b.Endpoint()
	status := fyne.NewMenuItem(endpointLabel(endpoint), nil)
	status.Disabled = true
	items := []*fyne.MenuItem{status}

	if state := b.KeyringState(); strings.HasPrefix(state, keyringUnavailable) {
		// The spec asks the UI to say when the keyring is unusable: the client token then
		// lives only in memory and changes on the next start.
		kr := fyne.NewMenuItem(shorten(labelKeyringPrefix+state, maxStatusLabel), nil)
		kr.Disabled = true
		items = append(items, kr)
	}

	copyEndpoint := fyne.NewMenuItem(labelCopyEndpoint, func() {
		// Tray actions run on the Fyne thread, so the clipboard can be used directly.
		ep := b.Endpoint()
		if ep == "" {
			log.Warn("tray: MCP listener is off, nothing copied")
			return
		}
		a.Clipboard().SetContent(ep)
		log.Info("tray: MCP endpoint copied", "endpoint", ep)
	})
	copyEndpoint.Disabled = endpoint == ""

	copyToken := fyne.NewMenuItem(labelCopyToken, func() {
		token, err := b.ClientToken()
		if err != nil {
			log.Error("tray: client token unavailable, nothing copied", "err", err)
			return
		}
		a.Clipboard().SetContent(token)
		log.Info("tray: client token copied") // never the token itself
	})

	quitItem := fyne.NewMenuItem(labelQuit, quit)
	// Marked explicitly: Fyne otherwise recognises Quit by its translated label and, in
	// another locale, would append a second Quit of its own.
	quitItem.IsQuit = true

	items = append(items, copyEndpoint, copyToken, fyne.NewMenuItemSeparator(), quitItem)
	return fyne.NewMenu("Switchboard", items...)
}

// endpointLabel is the first, disabled line of the menu.
func endpointLabel(endpoint string) string {
	if endpoint == "" {
		return labelListenerOff
	}
	return labelEndpointPrefix + endpoint
}

// shorten cuts s to at most n runes, marking a cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// checkTrayHost refuses to start where no tray can appear, and warns where one may appear only
// later. On Linux and the BSDs Fyne's tray is a StatusNotifierItem on the D-Bus session bus:
// without a bus it logs and carries on with nothing visible, leaving the user no way to quit.
// A missing StatusNotifierWatcher is only a warning, because a panel that starts later picks
// the item up.
func checkTrayHost(log *slog.Logger) error {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
	default:
		return nil
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("tray: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("tray: no D-Bus session bus for the system tray: %w", err)
	}
	defer conn.Close()
	var hasWatcher bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&hasWatcher)
	switch {
	case err != nil:
		log.Warn("tray: cannot ask the session bus for a tray host", "err", err)
	case !hasWatcher:
		log.Warn("tray: no StatusNotifierWatcher on the session bus; the tray icon appears once a panel with tray support runs")
	}
	return nil
}
