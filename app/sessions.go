package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Sessions window labels, also what the tests tap.
const (
	titleSessions   = "Switchboard"
	labelSessions   = "Open Switchboard…"
	labelStop       = "Stop"
	labelCopyID     = "Copy id"
	labelKill       = "Kill"
	labelAnswer     = "Answer"
	labelNoSession  = "Select an agent, a packet or the Work board on the left."
	labelFirstRepo  = "No repository yet: add the folder of a project agents may work in."
	labelFirstAgent = "No agent has run yet: Start agent (at the left) ▸ a profile ▸ a repository."
	frameInterval   = time.Second / 30
	listRefresh     = time.Second
)

// sessionsWindow lists the sessions and shows one: its live terminal (for an
// agent this app supervises), its reports and the questions it waits on.
type sessionsWindow struct {
	g   *gui
	win fyne.Window

	sessions []store.Session             // as last read; on the Fyne goroutine only
	repos    map[string]store.Repository // by id, for names; on the Fyne goroutine only
	profiles map[string]profile.Profile  // by id, for what they offer; on the Fyne goroutine only
	selected string                      // session id of the agent shown; on the Fyne goroutine only

	mainParts // the sidebar, the centre's views and the questions (mainwin.go)

	header  *widget.Label
	status  *widget.Label
	stop    *widget.Button
	kill    *widget.Button
	copyID  *widget.Button  // copies the shown session's id
	resume  *widget.Button  // a session that ended with the app (sessions_resume.go)
	termBox *fyne.Container // holds the terminal widget or a note
	reports *fyne.Container
	detail  mcpserver.SessionDetail // on the Fyne goroutine only
	shownID string                  // the session whose detail is shown; on the Fyne goroutine only

	cancelFrames context.CancelFunc // stops the selected terminal's frames
	replay       *replayView        // the selected ended session's replay, or nil
	shownBadges  string             // the badges last painted; on the Fyne goroutine only
	// listed is sessions for the refresh loop, which works out the badges
	// off the Fyne goroutine; replaced whole, never changed in place.
	listed atomic.Pointer[[]store.Session]
	// asking holds the sessions with a question open, as the last reload
	// read them; replaced whole, read by the refresh loop too.
	asking      atomic.Pointer[map[string]bool]
	stopRefresh chan struct{}
}

// showSessions opens the main window, or brings it forward, on the agent
// of sessionID when given.
func (g *gui) showSessions(sessionID string) {
	if g.sessions == nil {
		g.sessions = newSessionsWindow(g)
	}
	w := g.sessions
	w.win.Show()
	w.win.RequestFocus()
	w.reload()
	asked := sessionID != ""
	if sessionID == "" && w.node == "" && len(w.sessions) > 0 {
		// Opened from the tray: show the newest session rather than an
		// empty pane.
		sessionID = w.sessions[0].ID
	}
	if sessionID != "" {
		w.selectSession(sessionID)
	}
	if asked {
		// Opened on an agent that asks (the tray's "needs you", a
		// notification): the keyboard goes to the answer box.
		w.questions.answerFor(sessionID)
	}
}

// title is a session's first line: profile and repository.
func (w *sessionsWindow) title(s store.Session) string {
	who := s.Profile
	if who == "" {
		who = string(s.Kind)
	}
	if s.Name != "" {
		// What it works on first: two agents of one profile in one
		// repository read apart.
		who = s.Name + " · " + who
	}
	repo := s.RepositoryID
	if r, ok := w.repos[s.RepositoryID]; ok {
		repo = r.Name
		if repo == "" {
			repo = filepath.Base(r.Path)
		}
	}
	if repo == "" {
		return who
	}
	return who + " · " + repo
}

// badge is the short state shown left of a session: the session's state,
// or for a live agent of this app what its screen suggests.
func (w *sessionsWindow) badge(s store.Session) string {
	if asking := w.asking.Load(); s.State.Live() && asking != nil && (*asking)[s.ID] {
		// A question waits for the person, whatever the screen shows
		// meanwhile.
		return statusBadge(supervisor.StatusNeedsInput)
	}
	if s.State.Live() {
		if a, ok := w.agent(s.ID); ok && a.Exit() == nil {
			return statusBadge(a.Status())
		}
	}
	if s.Resumable() {
		return badgeResumable
	}
	switch s.State {
	case store.SessionEnded:
		return "■ ended"
	case store.SessionLost:
		return "✕ lost"
	case store.SessionStarting:
		return "… starting"
	}
	return "● running"
}

// The badges' marks are ones Fyne's fonts draw in the text colour or as
// a legible emoji: ❗ draws nothing and ◼ a dark grey square.
func statusBadge(st supervisor.Status) string {
	switch st {
	case supervisor.StatusNeedsInput:
		return "⚠ needs you"
	case supervisor.StatusIdle:
		return "○ idle"
	case supervisor.StatusExited:
		return "■ exited"
	case supervisor.StatusStopping:
		return "◌ stopping…"
	}
	return "● working"
}

func (w *sessionsWindow) agent(id string) (*supervisor.Session, bool) {
	agents := w.g.core.Agents()
	if agents == nil {
		return nil, false
	}
	return agents.Get(id)
}

// badges is every listed session's badge, to tell whether the list needs a
// repaint.
func (w *sessionsWindow) badges() string { return w.badgesOf(w.sessions) }

func (w *sessionsWindow) badgesOf(sessions []store.Session) string {
	var b strings.Builder
	for _, s := range sessions {
		b.WriteString(w.badge(s))
	}
	return b.String()
}

// reload reads the session list, the repositories' names and the selected
// session's detail.
func (w *sessionsWindow) reload() {
	list, err := view(w.g, mcpserver.MethodSessionList, store.SessionFilter{Limit: 200})
	if err != nil {
		w.g.log.Warn("sessions: list", "err", err)
		return
	}
	var waiting []store.Question
	if qs, err := view(w.g, mcpserver.MethodQuestionList, mcpserver.NoArgs{}); err == nil {
		asking := map[string]bool{}
		for _, q := range qs.Questions {
			asking[q.SessionID] = true
		}
		w.asking.Store(&asking)
		waiting = qs.Questions
	}
	if profiles, err := view(w.g, mcpserver.MethodProfileList, mcpserver.NoArgs{}); err == nil {
		w.profiles = map[string]profile.Profile{}
		for _, p := range profiles.Profiles {
			w.profiles[p.ID] = p.Profile
		}
	}
	if repos, err := view(w.g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{}); err == nil {
		w.repos = map[string]store.Repository{}
		w.repoOrder = w.repoOrder[:0]
		for _, r := range repos.Repositories {
			w.repos[r.ID] = r
			w.repoOrder = append(w.repoOrder, r.ID)
		}
	}
	if packets, err := view(w.g, mcpserver.MethodWorkList, store.PacketFilter{Limit: workListLimit}); err == nil {
		w.regroupPackets(packets)
	}
	listResumable(list.Sessions)
	w.sessions = list.Sessions
	w.listed.Store(&list.Sessions)
	w.rebuildSide()
	w.questions.show(waiting)
	w.shownBadges = w.badges()
	w.empty.SetText(w.emptyHeader())
	show(w.emptyAdd, len(w.repos) == 0)
	switch {
	case w.selected != "" && strings.HasPrefix(w.node, nodeAgent):
		w.loadDetail(mcpserver.TransportGUIView)
	case w.node == nodeBoard:
		w.board.reload()
	case strings.HasPrefix(w.node, nodePacket):
		w.packet.loadDetail(mcpserver.TransportGUIView)
	case strings.HasPrefix(w.node, nodeRepo):
		w.repo.show(w.repos[strings.TrimPrefix(w.node, nodeRepo)])
	}
}

// offersModes reports whether profile id has permission modes to name: a
// shell has none, and "asks before edits" would not be true of it.
func (w *sessionsWindow) offersModes(id string) bool {
	p, ok := w.profiles[id]
	return !ok || len(p.Permissions) > 0
}

// emptyHeader says what to do next when nothing is selected: a newcomer
// with nothing yet is told where to start.
func (w *sessionsWindow) emptyHeader() string {
	switch {
	case len(w.repos) == 0:
		return labelFirstRepo
	case len(w.sessions) == 0:
		return labelFirstAgent
	}
	return labelNoSession
}

// refreshLoop keeps the window current while it is open: it re-reads the
// sessions when the registry says something changed (at most every
// listRefresh: an agent reporting busily must not make the window read for
// each report), and repaints the agents' badges, which come from their
// screens and cost no call, every listRefresh.
func (w *sessionsWindow) refreshLoop(changed <-chan struct{}) {
	t := time.NewTicker(listRefresh)
	defer t.Stop()
	stale := false
	painted := "" // the badges this loop last asked to paint
	for {
		select {
		case <-w.stopRefresh:
			return
		case <-changed:
			stale = true
			changed = w.g.core.Registry().Changed()
			continue
		case <-t.C:
		}
		reload := stale
		stale = false
		// The badges come from the agents' screens: worked out here, off
		// the UI goroutine, so that an idle window wakes the UI (and its
		// event loop) only when one moved.
		var badges string
		if listed := w.listed.Load(); listed != nil {
			badges = w.badgesOf(*listed)
		}
		if !reload && badges == painted {
			continue
		}
		painted = badges
		fyne.Do(func() {
			switch {
			case reload:
				w.reload()
			case badges != w.shownBadges:
				// Repainting a list costs a frame; only when a badge moved.
				w.shownBadges = badges
				w.rebuildSide()
				if w.selected != "" {
					// Its header says the same (stopping…, the state).
					w.loadDetail(mcpserver.TransportGUIView)
				}
			}
		})
	}
}

// selectSession shows session id: its terminal, reports and questions.
func (w *sessionsWindow) selectSession(id string) {
	w.showView(w.agentView)
	if id == w.selected {
		w.node = nodeAgent + id
		w.reselect()
		w.reveal()
		return
	}
	w.leaveAgent() // the agent shown before
	w.selected = id
	w.node = nodeAgent + id
	w.reselect()
	w.reveal()
	a, live := w.agent(id)
	if live && a.Exit() == nil {
		// Watching and typing into an agent's terminal is audited once,
		// as the CLI's attach is; the keystrokes themselves go straight
		// to the terminal (a keystroke is no workflow state, and an fsync
		// for each would make typing lag).
		if _, err := invoke(w.g, mcpserver.MethodAgentAttach, mcpserver.AgentArgs{SessionID: id}); err != nil {
			w.g.log.Warn("sessions: attach", "session", id, "err", err)
		}
		term := termview.New(a)
		term.SetScrollback(a.Terminal())
		ctx, cancel := context.WithCancel(context.Background())
		w.cancelFrames = cancel
		frames := a.Frames(ctx, frameInterval)
		go func() {
			for snap := range frames {
				fyne.Do(func() { w.showFrame(term, snap) })
			}
		}()
		w.termBox.Objects = []fyne.CanvasObject{term}
		w.termBox.Refresh()
		w.showTermTab(labelTabTerminal)
		w.win.Canvas().Focus(term)
	} else if s, ok := w.session(id); ok {
		// Not running here: replay what was recorded, if anything was.
		rv, why := newReplayView(w.g, s)
		if rv != nil {
			w.replay = rv
			w.termBox.Objects = []fyne.CanvasObject{rv.content}
		} else {
			note := widget.NewLabel(why)
			note.Wrapping = fyne.TextWrapWord
			// Wrapped across the pane: centred, a wrapped label would
			// take a letter's width.
			w.termBox.Objects = []fyne.CanvasObject{container.NewVBox(note)}
		}
		w.termBox.Refresh()
		w.showTermTab(labelTabReplay)
	}
	w.loadDetail(mcpserver.TransportGUI)
}

// session is the listed session id.
func (w *sessionsWindow) session(id string) (store.Session, bool) {
	for _, s := range w.sessions {
		if s.ID == id {
			return s, true
		}
	}
	return store.Session{}, false
}

// loadDetail reads the selected session's detail and shows it, over t:
// the person's click selecting it, or a refresh's view.
func (w *sessionsWindow) loadDetail(t mcpserver.Transport) {
	d, err := call(w.g, t, mcpserver.MethodSessionGet, mcpserver.SessionGetArgs{SessionID: w.selected})
	if err != nil {
		w.g.log.Warn("sessions: detail", "session", w.selected, "err", err)
		return
	}
	w.detail = d
	s := d.Session
	w.header.SetText(w.title(s))
	// What the agent does, as the sidebar says it.
	line := fmt.Sprintf("%s · started %s", w.badge(s), s.StartedAt.Local().Format(time.DateTime))
	if ws := s.Workspace; ws != nil {
		line += " · " + ws.Branch
	}
	if s.Kind == store.SessionSupervised {
		if w.offersModes(s.Profile) {
			line += " · " + permissionText(s.Permission)
		}
		if a, ok := w.agent(s.ID); ok {
			line += " · " + a.Info().Confinement.Level
		}
	}
	line += usageSuffix(" · ", s.Usage)
	if s.EndedAt != nil {
		line += " · ended " + s.EndedAt.Local().Format(time.TimeOnly)
		if s.EndReason != "" {
			line += " (" + s.EndReason + ")"
		}
	}
	// The ids last, where a narrow window cuts first; Copy id has the
	// session's whole.
	line += " · " + s.ID
	if s.PID != 0 {
		line += fmt.Sprintf(" · pid %d", s.PID)
	}
	if s.Port != 0 && s.State.Live() {
		line += fmt.Sprintf(" · SWITCHBOARD_PORT %d", s.Port)
	}
	if w.copyID.Text != labelCopyID && w.shownID != s.ID {
		w.copyID.SetText(labelCopyID)
		w.copyID.SetIcon(theme.ContentCopyIcon())
	}
	w.shownID = s.ID
	w.status.SetText(line)
	a, live := w.agent(s.ID)
	if live && a.Exit() == nil {
		if a.Status() == supervisor.StatusStopping {
			w.stop.Disable()
		} else {
			w.stop.Enable()
		}
		w.kill.Enable()
	} else {
		w.stop.Disable()
		w.kill.Disable()
	}
	show(w.resume, w.canResume(s))
	w.showReports()
	w.showChangesTab(s)
}

// showReports lists the detail's reports, newest first.
func (w *sessionsWindow) showReports() {
	objs := make([]fyne.CanvasObject, 0, len(w.detail.Reports))
	for i := len(w.detail.Reports) - 1; i >= 0; i-- {
		r := w.detail.Reports[i]
		text := r.At.Local().Format("15:04:05") + "  " + string(r.Kind)
		if r.Text != "" {
			text += ": " + r.Text
		}
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapWord
		objs = append(objs, l)
	}
	w.reports.Objects = objs
	w.reports.Refresh()
}

// stopAgent stops the selected agent off the Fyne goroutine (a stop can
// take two grace periods). Kill stays available while a stop waits: an
// agent that ignores the interrupt is the reason to have it.
func (w *sessionsWindow) stopAgent(kill bool) {
	id := w.selected
	w.stop.Disable()
	if kill {
		w.kill.Disable()
	}
	go func() {
		if _, err := invoke(w.g, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: id, Kill: kill}); err != nil {
			w.g.log.Error("sessions: stop", "session", id, "err", err)
		}
		fyne.Do(w.reload)
	}()
}

// regroupPackets takes the newest packets of all and every repository's
// counts as the sidebar's groups. A group read whole and still open is
// read again, so that the packet shown from it keeps its row.
func (w *sessionsWindow) regroupPackets(list mcpserver.WorkList) {
	old := w.packets
	w.packets = groupPackets(list.Packets, list.Counts)
	w.packets.load = w.loadGroup
	for repo, cols := range old.repos {
		for c, g := range cols {
			now := w.packets.repos[repo]
			if !g.whole || now == nil || now[c].count <= len(now[c].packets) ||
				w.tree == nil || !w.tree.IsBranchOpen(fmt.Sprintf("%s%s/%d", nodeState, repo, c)) {
				continue
			}
			w.loadGroup(repo, c)
		}
	}
}

// loadGroup reads repository repo's packets of column col, newest first,
// at most workListLimit, and keeps them as the group's packets read.
func (w *sessionsWindow) loadGroup(repo string, col int) []sidePacket {
	var ps []store.Packet
	for _, s := range workColumnStates[col] {
		list, err := view(w.g, mcpserver.MethodWorkList, store.PacketFilter{RepositoryID: repo, State: s, Limit: workListLimit})
		if err != nil {
			w.g.log.Warn("sessions: list a packet group", "repository", repo, "state", s, "err", err)
			continue
		}
		for _, p := range list.Packets {
			if workColumnOf(p) == col {
				ps = append(ps, p)
			}
		}
	}
	slices.SortFunc(ps, func(a, b store.Packet) int { return cmp.Compare(b.Seq, a.Seq) })
	out := make([]sidePacket, 0, min(len(ps), workListLimit))
	for _, p := range ps[:min(len(ps), workListLimit)] {
		out = append(out, sidePacket{id: p.ID, title: p.Title})
	}
	if cols := w.packets.repos[repo]; cols != nil {
		cols[col].packets, cols[col].whole = out, true
	}
	return out
}
