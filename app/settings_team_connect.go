package app

// The Team tab's connection: a team database is named here, tried, saved
// for the next start, and the app starts again to open it; or the one
// saved here is forgotten. A store moves only at a start: every agent,
// token and lease is in it.

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/daemon"
)

// Words of the connection, also what the tests look for.
const (
	labelTeamConnect      = "Connect…"
	labelTeamDisconnect   = "Disconnect…"
	labelTeamRestart      = "Restart now"
	labelTeamLater        = "Later"
	placeholderTeamURL    = "postgres://you@db.example/switchboard"
	textTeamConnectHint   = "A PostgreSQL database every instance of the team can reach. No password here: keep it in ~/.pgpass (mode 0600)."
	textTeamConnected     = "Connected: Switchboard starts again to open its store on the team database. Agents running now stop (resume them once it is back). Restart now?"
	textTeamSavedForLater = "Saved: the team database is opened at the next start."
	textTeamDisconnect    = "Leave the team database? Switchboard starts again on this machine's own store; the team's database keeps its data, and this instance's agents there end. Agents running now stop."
	textTeamLeftForLater  = "Forgotten: the next start opens this machine's own store."
)

// teamConnect is the part of the Team tab that moves the store.
type teamConnect struct {
	w      *settingsWindow
	entry  *widget.Entry
	button *widget.Button
	status *widget.Label
	box    *fyne.Container
}

// newTeamConnect builds the connection part for the store this run opened:
// a form to connect on this machine's own store, Disconnect on a team
// database saved here, and where to change it when a flag or the
// environment named it.
func (w *settingsWindow) newTeamConnect() *teamConnect {
	c := &teamConnect{w: w, status: widget.NewLabel("")}
	c.status.Wrapping = fyne.TextWrapWord
	c.status.Hide()
	conn, from := w.g.core.Database()
	hint := widget.NewLabel("")
	hint.Wrapping = fyne.TextWrapWord
	switch from {
	case "":
		c.entry = widget.NewEntry()
		c.entry.SetPlaceHolder(placeholderTeamURL)
		c.entry.OnSubmitted = func(string) { c.connect() }
		c.button = widget.NewButton(labelTeamConnect, c.connect)
		hint.SetText(textTeamConnectHint)
		c.box = container.NewVBox(container.NewBorder(nil, nil, nil, c.button, c.entry), hint, c.status)
	case daemon.DatabaseFromSettings:
		c.button = widget.NewButton(labelTeamDisconnect, c.disconnect)
		hint.SetText("Connected from Settings to " + redactedConn(conn) + ".")
		c.box = container.NewVBox(container.NewBorder(nil, nil, nil, c.button, hint), c.status)
	default:
		where := "--database"
		if from == daemon.DatabaseFromEnv {
			where = "SWITCHBOARD_DATABASE_URL"
		}
		hint.SetText("The team database is named by " + where + " where Switchboard was started: change it there.")
		c.box = container.NewVBox(hint)
	}
	return c
}

// connect tries the database named, off the Fyne goroutine (a server that
// does not answer takes its time), saves it when it answers, and offers to
// start again.
func (c *teamConnect) connect() {
	conn := strings.TrimSpace(c.entry.Text)
	if conn == "" {
		c.say("Name the database first, as " + placeholderTeamURL + ".")
		return
	}
	c.button.Disable()
	c.say("Trying " + redactedConn(conn) + "…")
	g := c.w.g
	g.background(func() {
		err := g.core.ConnectDatabase(conn)
		fyne.Do(func() {
			c.button.Enable()
			if err != nil {
				c.say("Not connected: " + err.Error() + ". Nothing was saved.")
				return
			}
			c.say("")
			c.askRestart(textTeamConnected, textTeamSavedForLater)
		})
	})
}

// disconnect forgets the saved team database, after asking.
func (c *teamConnect) disconnect() {
	dialog.ShowConfirm("Leave the team database", textTeamDisconnect, func(ok bool) {
		if !ok {
			return
		}
		if err := c.w.g.core.DisconnectDatabase(); err != nil {
			c.say("Not changed: " + err.Error())
			return
		}
		c.askRestart("Forgotten. Restart now to open this machine's own store?", textTeamLeftForLater)
	}, c.w.win)
}

// askRestart asks whether to start again now; later leaves what was saved
// for the next start, and says so.
func (c *teamConnect) askRestart(question, later string) {
	d := dialog.NewConfirm("Restart Switchboard", question, func(now bool) {
		if !now {
			c.say(later)
			return
		}
		c.w.g.core.RequestRestart()
		c.w.g.quit()
	}, c.w.win)
	d.SetConfirmText(labelTeamRestart)
	d.SetDismissText(labelTeamLater)
	d.Show()
}

func (c *teamConnect) say(text string) {
	c.status.SetText(text)
	c.status.Hidden = text == ""
	c.status.Refresh()
}

// redactedConn is a connection string as it may be shown: its user part
// kept, any password (never saved here) cut.
func redactedConn(conn string) string {
	if daemon.HoldsPassword(conn) {
		if i := strings.Index(conn, "://"); i >= 0 {
			if at := strings.LastIndex(conn, "@"); at > i {
				return conn[:i+3] + "…@" + conn[at+1:]
			}
		}
		return "the database named"
	}
	return conn
}
