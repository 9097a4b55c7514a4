package app

// Desktop notifications that open what they are about when clicked.
//
// Fyne's notification (fyne.io/fyne/v2 v2.7.1, third_party/fyne) is a title
// and a body and nothing else, on every driver: on Linux and the BSDs it
// calls org.freedesktop.Notifications.Notify with no actions, on Windows it
// shows a toast through PowerShell, on macOS it goes through
// UNUserNotificationCenter (a bundled app) or osascript; none tells the app
// of a click. Where the desktop speaks the freedesktop protocol on the
// session bus (Linux and the BSDs: GNOME, KDE, XFCE, dunst, mako…),
// Switchboard sends its notifications itself, with a default action, and
// listens for ActionInvoked: a click opens the question. Elsewhere, or when
// the bus refuses, they go through Fyne and a click does nothing; the
// tray's "Open Switchboard… (an agent needs you)" opens the question there.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"
)

const (
	notifyBus   = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
	// notifyActionDefault is the action a click on the notification's
	// body invokes; notifyActionOpen the button some servers show for it.
	notifyActionDefault = "default"
	notifyActionOpen    = "open"
	labelNotifyOpen     = "Open"
	// notifyKeep bounds the clicks remembered: the oldest go first (a
	// notification server that never says a notification closed would
	// otherwise grow the map for as long as the app runs).
	notifyKeep = 64
	// notifyCallTimeout bounds a Notify call: a wedged notification
	// server must not hold the tray's refresh.
	notifyCallTimeout = 5 * time.Second
)

// notifier sends a desktop notification; open, when not nil, runs on the
// Fyne goroutine when the person clicks it.
type notifier interface {
	send(n *fyne.Notification, open func())
}

// sendNotification sends n through the app's notifier; open runs if the
// person clicks it, where the desktop says so.
func (g *gui) sendNotification(n *fyne.Notification, open func()) {
	if g.notifier == nil {
		g.app.SendNotification(n)
		return
	}
	g.notifier.send(n, open)
}

// fyneNotifier is Fyne's notification, whose click opens nothing.
type fyneNotifier struct{ app fyne.App }

func (f fyneNotifier) send(n *fyne.Notification, _ func()) { f.app.SendNotification(n) }

// desktopNotifier is the notifier of this desktop and what ends it: the
// freedesktop one on its own session bus connection where there is one,
// else Fyne's.
func desktopNotifier(a fyne.App, log *slog.Logger) (notifier, func()) {
	fallback := fyneNotifier{a}
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
	default:
		return fallback, func() {}
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		log.Warn("notify: no session bus: notifications go through Fyne, and a click on one opens nothing", "err", err)
		return fallback, func() {}
	}
	d, err := newDBusNotifier(conn, log, fallback)
	if err != nil {
		conn.Close()
		log.Warn("notify: notifications go through Fyne, and a click on one opens nothing", "err", err)
		return fallback, func() {}
	}
	return d, func() { conn.Close() }
}

// dbusNotifier sends freedesktop notifications with a default action and
// runs the action of the one clicked.
type dbusNotifier struct {
	conn     *dbus.Conn
	log      *slog.Logger
	fallback notifier

	mu    sync.Mutex
	open  map[uint32]func() // by notification id
	order []uint32          // the ids in open, oldest first
}

// newDBusNotifier listens on conn, which it owns until it is closed, for
// the notification server's signals.
func newDBusNotifier(conn *dbus.Conn, log *slog.Logger, fallback notifier) (*dbusNotifier, error) {
	// The bus resolves the well-known name to its owner: another program
	// on the bus cannot pose as the server and open a question.
	if err := conn.AddMatchSignal(dbus.WithMatchSender(notifyBus), dbus.WithMatchObjectPath(notifyPath),
		dbus.WithMatchInterface(notifyIface)); err != nil {
		return nil, fmt.Errorf("listening for the notification server's signals: %w", err)
	}
	sig := make(chan *dbus.Signal, 16)
	conn.Signal(sig)
	d := &dbusNotifier{conn: conn, log: log, fallback: fallback, open: map[uint32]func(){}}
	go d.listen(sig)
	return d, nil
}

func (d *dbusNotifier) send(n *fyne.Notification, open func()) {
	actions := []string{}
	if open != nil {
		actions = []string{notifyActionDefault, labelNotifyOpen}
	}
	// desktop-entry lets the server show the app's name and icon from
	// its launcher entry (FyneApp.toml's id).
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant(AppID)}
	ctx, cancel := context.WithTimeout(context.Background(), notifyCallTimeout)
	defer cancel()
	var id uint32
	err := d.conn.Object(notifyBus, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"Switchboard", uint32(0), "", n.Title, n.Content, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		d.log.Warn("notify: the notification server refused a notification; sent through Fyne, a click on it opens nothing", "err", err)
		d.fallback.send(n, nil)
		return
	}
	if open != nil {
		d.remember(id, open)
	}
}

func (d *dbusNotifier) remember(id uint32, open func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.open[id]; !ok {
		d.order = append(d.order, id)
	}
	d.open[id] = open
	for len(d.order) > notifyKeep {
		delete(d.open, d.order[0])
		d.order = d.order[1:]
	}
}

// take forgets notification id and returns its action, nil if none.
func (d *dbusNotifier) take(id uint32) func() {
	d.mu.Lock()
	defer d.mu.Unlock()
	open := d.open[id]
	delete(d.open, id)
	for i, o := range d.order {
		if o == id {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
	return open
}

// listen runs the action of each notification clicked, until the
// connection closes.
func (d *dbusNotifier) listen(sig <-chan *dbus.Signal) {
	for s := range sig {
		if s.Path != notifyPath {
			continue
		}
		switch s.Name {
		case notifyIface + ".ActionInvoked":
			id, key, err := actionInvoked(s.Body)
			if err != nil {
				d.log.Warn("notify: "+err.Error(), "body", fmt.Sprint(s.Body))
				continue
			}
			if key != notifyActionDefault && key != notifyActionOpen {
				continue
			}
			if open := d.take(id); open != nil {
				fyne.Do(open)
			}
		case notifyIface + ".NotificationClosed":
			// Reason 2, dismissed by the person, may come before the
			// click's ActionInvoked: that one is kept (notifyKeep bounds
			// them).
			if len(s.Body) > 1 {
				id, ok := s.Body[0].(uint32)
				if reason, _ := s.Body[1].(uint32); ok && reason != 2 {
					d.take(id)
				}
			}
		}
	}
}

// actionInvoked reads an ActionInvoked signal's notification id and
// action key.
func actionInvoked(body []any) (uint32, string, error) {
	if len(body) < 2 {
		return 0, "", errors.New("an ActionInvoked signal without its id and action")
	}
	id, ok1 := body[0].(uint32)
	key, ok2 := body[1].(string)
	if !ok1 || !ok2 {
		return 0, "", errors.New("an ActionInvoked signal of other types than (uint32, string)")
	}
	return id, key, nil
}
