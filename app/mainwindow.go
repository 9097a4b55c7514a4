package app

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/godbus/dbus/v5"
)

// The window the app opens by itself, and what it says without a tray.
const (
	labelNoTray      = "There is no system tray on this desktop: this window is how you reach Switchboard. Closing it asks whether to quit."
	labelQuitNoTray  = "Quit"
	labelKeepRunning = "Keep running"
)

// openAtStart opens the main window at start where the tray alone would leave the person
// with nothing to see: on a desktop with no tray host, and at first run (no repository
// yet). A person who has set Switchboard up, on a desktop with a tray, finds it there at
// login without a window in the way. Either way a second launch of the app shows the
// window (Core.SetShowWindow).
func (g *gui) openAtStart(trayHost bool, model trayModel) {
	g.noTray = !trayHost
	g.core.SetShowWindow(func() bool {
		fyne.Do(g.showMain)
		return true
	})
	if !trayHost || len(model.repos) == 0 {
		// Before Run has started, fyne.Do queues the call and the loop runs it first.
		fyne.Do(g.showMain)
	}
}

// windowMenu gives the main window the tray's menu as its menu bar where there is no tray:
// starting an agent, the Work board, Audit, Settings and Quit stay in reach.
func (g *gui) windowMenu(m trayModel) {
	if g.noTray && g.sessions != nil {
		g.sessions.win.SetMainMenu(fyne.NewMainMenu(g.trayMenu(m)))
	}
}

// noTrayNotice is the line the main window shows without a tray, nil with one.
func (g *gui) noTrayNotice() fyne.CanvasObject {
	if !g.noTray {
		return nil
	}
	l := widget.NewLabel(labelNoTray)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return l
}

// closeWithoutTray has win ask, when it is closed on a desktop with no tray, whether to
// quit: with no tray icon to come back to, a closed window would leave the app running
// unseen.
func (g *gui) closeWithoutTray(win fyne.Window) {
	if g.noTray {
		win.SetCloseIntercept(func() { g.askQuit(win) })
	}
}

// askQuit asks whether to quit or keep running; Keep running hides win, and launching
// Switchboard again shows it.
func (g *gui) askQuit(win fyne.Window) {
	msg := widget.NewLabel("There is no system tray here to keep Switchboard in. Quit stops every running agent. " +
		"Keep running hides this window; start Switchboard again to bring it back.")
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Quit Switchboard?", labelQuitNoTray, labelKeepRunning, msg, func(quit bool) {
		if quit {
			g.quit()
			return
		}
		win.Hide()
	}, win)
	d.Resize(fyne.NewSize(460, 0))
	d.Show()
}

// checkTrayHost refuses to start where no tray can appear, and says whether a tray host runs
// now. On Linux and the BSDs Fyne's tray is a StatusNotifierItem on the D-Bus session bus:
// without a bus it logs and carries on with nothing visible, leaving the user no way to quit.
// A missing StatusNotifierWatcher (stock GNOME has none) is not an error, because a panel
// that starts later picks the item up, but until then the window is the only way in.
func checkTrayHost(log *slog.Logger) (host bool, err error) {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
	default:
		return true, nil
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false, errors.New("tray: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false, fmt.Errorf("tray: no D-Bus session bus for the system tray: %w", err)
	}
	defer conn.Close()
	var hasWatcher bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&hasWatcher)
	switch {
	case err != nil:
		log.Warn("tray: cannot ask the session bus for a tray host", "err", err)
	case !hasWatcher:
		log.Warn("tray: no StatusNotifierWatcher on the session bus: the window stays the way in until a panel with tray support runs")
	}
	return err == nil && hasWatcher, nil
}
