package app

// The Settings window's Team tab: where the store is and, in team mode
// (issue 18: the store on PostgreSQL, shared by several instances), the
// instances that share it and the shared queue, as team.status gives them.

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const (
	labelTeamTab = "Team"

	// teamReloadEvery spaces the re-reads that changes ask for: in team
	// mode every instance's writes reach this one.
	teamReloadEvery = 2 * time.Second
	// teamPollEvery is how often the tab re-reads in team mode with
	// nothing changed: the heartbeats that keep an instance running, a
	// clean stop and the silence that makes one silent tell no other
	// instance, so only a read sees them. Twice a heartbeat.
	teamPollEvery = 2 * daemon.DefaultHeartbeat

	textTeamOff = "The store is this machine's bbolt file: this Switchboard alone reads and writes it. " +
		"To share the work queue with other Switchboard instances (team mode), connect below to a PostgreSQL " +
		"database they all use (or start Switchboard with --database URL or SWITCHBOARD_DATABASE_URL; docs/team-mode.md)."
)

// teamPane shows team.status. It reads off the Fyne goroutine (a shared
// database may be slow to answer, or not answer) and only while the tab is
// shown, and repaints only when what it shows changed. Every field is on
// the Fyne goroutine only.
type teamPane struct {
	w   *settingsWindow
	now func() time.Time // the clock "seen … ago" is measured on

	mode, database, instance, queue *widget.Label
	form                            *widget.Form
	note                            *widget.Label
	heading                         *widget.Label
	rows                            *fyne.Container
	box                             *fyne.Container // the tab's content
	connect                         *teamConnect

	shown   bool      // the tab is selected
	loading bool      // a read is under way
	again   bool      // another read was asked for meanwhile
	pending bool      // a re-read waits for teamReloadEvery
	polling bool      // a poll is scheduled
	started time.Time // when the last read started
	painted string    // what the tab shows, to tell a change
	last    teamView  // what the last read that worked gave
	// loaded is called after each read is shown (tests wait on it).
	loaded func()
}

func (w *settingsWindow) teamTab() fyne.CanvasObject {
	p := &teamPane{w: w, now: time.Now, rows: container.NewVBox()}
	w.team = p
	label := func() *widget.Label {
		l := widget.NewLabel("")
		l.Wrapping = fyne.TextWrapWord
		l.Selectable = true
		return l
	}
	p.mode, p.database, p.instance, p.queue = label(), label(), label(), label()
	p.form = widget.NewForm()
	p.note = widget.NewLabel("Reading the team's status…")
	p.note.Wrapping = fyne.TextWrapWord
	p.heading = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.heading.Hide()
	p.connect = w.newTeamConnect()
	top := container.NewVBox(p.form, p.note, p.connect.box, p.heading)
	p.box = container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.rows))
	return p.box
}

// setShown is told when the tab is selected or left: the status is read on
// the way in, and not while another tab is shown.
func (p *teamPane) setShown(shown bool) {
	p.shown = shown
	if shown {
		p.load()
	}
}

// changed re-reads the status when the tab is shown, at most every
// teamReloadEvery; a change sooner is read when that time is up.
func (p *teamPane) changed() {
	if !p.shown || p.pending {
		return
	}
	wait := time.Until(p.started.Add(teamReloadEvery))
	if wait <= 0 {
		p.load()
		return
	}
	p.pending = true
	p.after(wait, func() {
		p.pending = false
		p.changed()
	})
}

// after runs f on the Fyne goroutine in d, unless the window closes first.
func (p *teamPane) after(d time.Duration, f func()) {
	stop := p.w.stopRefresh
	go func() {
		select {
		case <-stop:
		case <-time.After(d):
			fyne.Do(func() {
				select {
				case <-stop: // closed meanwhile
				default:
					f()
				}
			})
		}
	}()
}

// load reads team.status off the Fyne goroutine and shows it; a load asked
// for during another runs after it.
func (p *teamPane) load() {
	if p.loading {
		p.again = true
		return
	}
	p.loading, p.started = true, time.Now()
	go func() {
		// A view: the tab re-reads on changes and on a timer (see view).
		st, err := view(p.w.g, mcpserver.MethodTeamStatus, mcpserver.NoArgs{})
		fyne.Do(func() {
			p.loading = false
			if err != nil {
				p.w.g.log.Warn("settings: team status", "err", err)
				// What was read last stays: a database away for a
				// moment does not empty the tab.
				v := p.last
				v.note = "The team's status could not be read: " + refusalText(err)
				p.paint(v)
			} else {
				p.last = teamViewOf(st, p.now())
				p.paint(p.last)
			}
			if p.last.team && !p.polling {
				p.polling = true
				p.after(teamPollEvery, func() {
					p.polling = false
					p.changed()
				})
			}
			if p.again && p.shown {
				p.again = false
				p.load()
			}
			if p.loaded != nil {
				p.loaded()
			}
		})
	}()
}

// teamView is the tab's text, worked out from a status: what is painted,
// and what tells whether a new read changed anything.
type teamView struct {
	team                            bool
	read                            bool // a status was read (the form has something to show)
	mode, database, instance, queue string
	note                            string // under the form, hidden when ""
	heading                         string // over the rows, hidden when ""
	rows                            []teamRow
}

// teamRow is one instance's line.
type teamRow struct {
	title, facts string
	state        string
}

func (v teamView) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t %t %q %q %q %q %q %q\n", v.team, v.read, v.mode, v.database, v.instance, v.queue, v.note, v.heading)
	for _, r := range v.rows {
		fmt.Fprintf(&b, "%q %q %q\n", r.title, r.facts, r.state)
	}
	return b.String()
}

// teamViewOf is what the tab shows of st at now.
func teamViewOf(st mcpserver.TeamStatus, now time.Time) teamView {
	v := teamView{team: st.Team, read: true, database: st.Database}
	if !st.Team {
		v.mode = "Off"
		v.database += "  (this machine's bbolt file)"
		v.note = textTeamOff
		return v
	}
	v.mode = "On: the store is shared on PostgreSQL"
	v.instance = st.Instance
	v.queue = queueText(st.Queue)
	v.heading = fmt.Sprintf("Instances that have used this database (%d)", len(st.Instances))
	for _, in := range st.Instances {
		v.rows = append(v.rows, teamRowOf(in, now))
	}
	return v
}

// teamRowOf is one instance: its id and host, marked when it is this one,
// then its live sessions, when it was last seen, its version and process.
func teamRowOf(in mcpserver.TeamInstance, now time.Time) teamRow {
	title := in.ID + "  ·  " + orUnknown(in.Host)
	if in.Self {
		title += "  (this instance)"
	}
	facts := []string{plural(in.Sessions, "live session"), "seen " + seenAgo(now.Sub(in.SeenAt)),
		"version " + orUnknown(in.Version), fmt.Sprintf("pid %d", in.PID),
		"started " + in.StartedAt.Local().Format(time.DateTime)}
	if in.LostAt != nil {
		lost := "lost " + in.LostAt.Local().Format(time.DateTime)
		if in.LostBy != "" {
			lost += " (found by " + in.LostBy + ")"
		}
		facts = append(facts, lost)
	}
	return teamRow{title: title, facts: strings.Join(facts, "  ·  "), state: in.State}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// seenAgo says how long ago an instance last beat. Under a minute it does
// not count the seconds: a running instance beats every few, and a line
// that changed with each would be repainted with each read.
func seenAgo(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute ago"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// queueText is the shared queue's packets by state, in the order they
// move, then any state this build does not know.
func queueText(q map[store.PacketState]int) string {
	var parts []string
	known := map[store.PacketState]bool{}
	for _, s := range store.PacketStates() {
		known[s] = true
		parts = append(parts, fmt.Sprintf("%d %s", q[s], strings.ReplaceAll(string(s), "_", " ")))
	}
	var rest []string
	for s, n := range q {
		if !known[s] {
			rest = append(rest, fmt.Sprintf("%d %s", n, s))
		}
	}
	slices.Sort(rest)
	return strings.Join(append(parts, rest...), "  ·  ")
}

// paint shows v, unless it is what the tab shows already.
func (p *teamPane) paint(v teamView) {
	key := v.key()
	if key == p.painted {
		return
	}
	p.painted = key
	p.note.SetText(v.note)
	p.note.Hidden = v.note == ""
	p.heading.SetText(v.heading)
	p.heading.Hidden = v.heading == ""
	var items []*widget.FormItem
	if v.read {
		p.mode.SetText(v.mode)
		p.database.SetText(v.database)
		items = append(items, widget.NewFormItem("Team mode", p.mode), widget.NewFormItem("Database", p.database))
	}
	if v.team {
		p.instance.SetText(v.instance)
		p.queue.SetText(v.queue)
		items = append(items, widget.NewFormItem("This instance", p.instance), widget.NewFormItem("Shared queue", p.queue))
	}
	p.form.Items = items
	p.form.Refresh()
	var rows []fyne.CanvasObject
	for i, r := range v.rows {
		if i > 0 {
			rows = append(rows, widget.NewSeparator())
		}
		rows = append(rows, teamRowObject(r))
	}
	p.rows.Objects = rows
	p.rows.Refresh()
	// The form and the heading above the rows changed height.
	p.box.Refresh()
}

// teamRowObject is an instance's two lines with its state's badge.
func teamRowObject(r teamRow) fyne.CanvasObject {
	text := twoLines()
	setTwoLines(text, r.title, r.facts)
	bg, fg := instanceStateColors(r.state)
	// One width for every badge, the widest word's, so that they stand
	// in a column.
	sizer := canvas.NewRectangle(color.Transparent)
	sizer.SetMinSize(newTextBadge("running", bg, fg).MinSize())
	badge := container.NewStack(sizer, container.NewCenter(newTextBadge(r.state, bg, fg)))
	return container.NewBorder(nil, nil, nil, container.NewCenter(badge), text)
}

// instanceStateColors are the badge colours of an instance's state:
// running is well, silent may be lost soon, lost had its sessions ended,
// stopped is at rest.
func instanceStateColors(state string) (fyne.ThemeColorName, fyne.ThemeColorName) {
	switch state {
	case "running":
		return theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess
	case "silent":
		return theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	case "lost":
		return theme.ColorNameError, theme.ColorNameForegroundOnError
	}
	return theme.ColorNameDisabledButton, theme.ColorNameForeground
}
