package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"

	"github.com/switchboard-dev/switchboard/assets"
	"github.com/switchboard-dev/switchboard/internal/autostart"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
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
	labelCopyConfig     = "Copy client config"
	labelConfigClaude   = "Claude Code command"
	labelConfigCodex    = "Codex config.toml"
	labelConfigJSON     = "JSON (mcpServers)"
	labelStartAgent     = "Start agent"
	labelNoRepos        = "No repositories yet (switchboard repo add PATH)"
	labelNotInstalled   = " (not installed)"
	labelQuit           = "Quit"

	labelSessionsAttention = "Open Switchboard… (an agent needs you)"
	labelWork              = "Work board…"
	labelAudit             = "Audit…"
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
// The tray is the interface; the window opens at start only where nobody would otherwise see
// the app (openAtStart), and whenever it is launched again. RunTray returns an error
// without starting Fyne when no tray can appear at all (no display, or on Linux and the BSDs
// no D-Bus session bus for the StatusNotifierItem), so the caller can fall back to running
// headless instead of leaving an invisible process behind.
func RunTray(ctx context.Context, core Core, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	trayHost, err := checkTrayHost(log)
	if err != nil {
		return err
	}

	icon := fyne.NewStaticResource("app.png", assets.AppIcon())
	// A plain `go build` carries no FyneApp.toml metadata; without a name Fyne titles the
	// tray item with the bare app id, which is what panels show on hover.
	//
	// fyneDo: every change to the UI from another goroutine goes through fyne.Do (frames,
	// refreshes, timers), so Fyne's transitional thread checks are off, as FyneApp.toml says.
	fyneapp.SetMetadata(fyne.AppMetadata{ID: AppID, Name: "Switchboard", Version: Version, Build: 1, Icon: icon,
		Migrations: map[string]bool{"fyneDo": true}})
	a := fyneapp.NewWithID(AppID)
	desk, ok := a.(desktop.App)
	if !ok {
		return errors.New("tray: the Fyne driver in use has no system tray")
	}
	a.SetIcon(icon)
	g := &gui{app: a, core: core, log: log, startup: startupConfig{env: autostart.Env{Getenv: os.Getenv}}}
	g.quit = g.quitApp
	// Fyne sets no tooltip; the tray it drives is systray's, whose
	// tooltip says when the store does not answer.
	g.tooltip = systray.SetTooltip
	notify, closeNotify := desktopNotifier(a, log)
	defer closeNotify()
	g.notifier = notify
	// The icon is set before the menu: setting the menu starts the tray, which picks up the
	// icon already set. On Linux the bytes must be a PNG (the SNI pixmap is decoded from it).
	// Subscribed before the first read, so a change in between is not missed.
	changed := core.Registry().Changed()
	model := g.menuModel()
	desk.SetSystemTrayIcon(trayIcon(model.state))
	desk.SetSystemTrayMenu(g.trayMenu(model))
	if model.storeDown {
		// refreshTray sets the tooltip when this changes, not before.
		g.tooltip(trayTooltip(true))
	}

	g.openAtStart(trayHost, model)

	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			log.Info("tray: quitting", "cause", context.Cause(ctx))
			// Before Run has started, fyne.Do queues the call and the loop runs it first.
			fyne.Do(g.quitApp)
		case <-stopped:
		}
	}()
	go g.refreshTray(desk, model, changed, stopped)

	log.Info("tray: running", "endpoint", core.Endpoint(), "keyring", core.KeyringState())
	a.Run()
	log.Info("tray: stopped")
	return nil
}

// trayRefresh is how often the tray looks at the agents' screens for its icon. That costs
// no registry call; profiles, repositories and questions are re-read at most as often, and
// only when the registry says something changed, since every read is an audited call.
const trayRefresh = 2 * time.Second

// refreshTray rebuilds the menu and swaps the icon when what they show has changed.
func (g *gui) refreshTray(desk desktop.App, shown trayModel, changed <-chan struct{}, stop <-chan struct{}) {
	t := time.NewTicker(trayRefresh)
	defer t.Stop()
	m := shown
	stale := false
	for {
		select {
		case <-stop:
			return
		case <-changed:
			// Read on the next tick, not now: agents commit many calls a
			// second, and each read here is four audited calls.
			changed = g.core.Registry().Changed()
			stale = true
			continue
		case <-t.C:
		}
		if g.health.isDown() {
			// Nothing else may call while the store is away: the tray's
			// reads are what finds it back.
			stale = true
		}
		if stale {
			stale = false
			m = g.menuModel()
			g.notifyAttention(shown, m)
		} else {
			m.state, m.attention, m.notes = g.attentionState(m.questions, m.escalated)
			// Agents' own notifications need no registry read: announced
			// on the tick they are seen.
			g.notifyAttention(shown, m)
			// A small file, read here so that a toggle in Settings or
			// `switchboard autostart` in a terminal shows within a tick.
			m.startAtLogin = g.startAtLoginOn()
			// A window's call may have found the store gone, or back.
			m.storeDown = g.health.isDown()
		}
		if m.equal(shown) {
			continue
		}
		iconChanged := m.state != shown.state
		storeChanged := m.storeDown != shown.storeDown
		shown = m
		fyne.Do(func() {
			if iconChanged {
				desk.SetSystemTrayIcon(trayIcon(m.state))
			}
			if storeChanged && g.tooltip != nil {
				g.tooltip(trayTooltip(m.storeDown))
			}
			desk.SetSystemTrayMenu(g.trayMenu(m))
			g.windowMenu(m)
		})
	}
}

func trayIcon(s trayState) fyne.Resource {
	switch s {
	case stateWorking:
		return fyne.NewStaticResource("tray-working.png", assets.TrayWorking())
	case stateAttention:
		return fyne.NewStaticResource("tray-attention.png", assets.TrayAttention())
	}
	return fyne.NewStaticResource("tray-idle.png", assets.TrayIdle())
}

// trayModel is what the changing parts of the tray show.
type trayModel struct {
	profiles  []supervisor.ProfileInfo
	repos     []store.Repository
	questions []store.Question
	// escalated are the live sessions whose last report is an escalation.
	escalated []store.Report
	// live are the running sessions, to name the agents that notify.
	live  []store.Session
	state trayState
	// attention is the session that needs the person (the oldest question's,
	// else an agent that notified or whose screen asks), "" when none does.
	attention string
	// notes are the live agents' desktop notifications (OSC 9/777) that hold.
	notes []agentNote
	// startAtLogin is whether the autostart entry starts Switchboard at login.
	startAtLogin bool
	// storeDown is whether the store did not answer (storehealth.go).
	storeDown bool
}

func (m trayModel) equal(o trayModel) bool {
	if m.state != o.state || m.attention != o.attention || len(m.profiles) != len(o.profiles) || len(m.repos) != len(o.repos) ||
		len(m.notes) != len(o.notes) || m.startAtLogin != o.startAtLogin || m.storeDown != o.storeDown {
		return false
	}
	for i := range m.notes {
		if m.notes[i].key() != o.notes[i].key() {
			return false
		}
	}
	for i := range m.profiles {
		a, b := m.profiles[i], o.profiles[i]
		if a.ID != b.ID || a.Name != b.Name || a.Available != b.Available || len(a.Permissions) != len(b.Permissions) {
			return false
		}
	}
	for i := range m.repos {
		a, b := m.repos[i], o.repos[i]
		if a.ID != b.ID || a.Name != b.Name || a.Isolation != b.Isolation || (a.FullAuto == nil) != (b.FullAuto == nil) {
			return false
		}
	}
	return true
}

// menuModel reads what the tray shows. A failed read leaves that part empty: the tray must
// keep working when, say, the database is busy.
func (g *gui) menuModel() trayModel {
	var m trayModel
	profiles, err := view(g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		g.log.Warn("tray: profiles", "err", err)
	}
	m.profiles = profiles.Profiles
	repos, err := view(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		g.log.Warn("tray: repositories", "err", err)
	}
	m.repos = repos.Repositories
	qs, err := view(g, mcpserver.MethodQuestionList, mcpserver.NoArgs{})
	if err != nil {
		g.log.Warn("tray: questions", "err", err)
	}
	m.questions = qs.Questions
	live, err := view(g, mcpserver.MethodSessionList, store.SessionFilter{State: store.SessionRunning})
	if err != nil {
		g.log.Warn("tray: sessions", "err", err)
	}
	m.live = live.Sessions
	for _, s := range live.Sessions {
		if s.LastReport != nil && s.LastReport.Kind == store.ReportEscalate {
			m.escalated = append(m.escalated, *s.LastReport)
		}
	}
	m.state, m.attention, m.notes = g.attentionState(m.questions, m.escalated)
	m.startAtLogin = g.startAtLoginOn()
	m.storeDown = g.health.isDown()
	return m
}

// attentionState is the icon's state, the session that needs the person and the agents'
// notifications that hold: a waiting question first, else an agent whose status says it
// waits (its own word first: a Claude Code hook, a session_report, an OSC 9/777
// notification; else a screen that looks like a question); working while one works.
func (g *gui) attentionState(questions []store.Question, escalated []store.Report) (trayState, string, []agentNote) {
	state, attention := stateIdle, ""
	if len(questions) > 0 {
		state, attention = stateAttention, questions[0].SessionID
	} else if len(escalated) > 0 {
		state, attention = stateAttention, escalated[0].SessionID
	}
	agents := g.core.Agents()
	if agents == nil {
		return state, attention, nil
	}
	var notes []agentNote
	for _, a := range agents.List() {
		if a.Exit == nil && a.Attention != nil {
			notes = append(notes, agentNote{session: a.SessionID, Attention: *a.Attention})
		}
		switch {
		case a.Exit != nil:
		case a.Status == supervisor.StatusNeedsInput:
			state = stateAttention
			if attention == "" {
				attention = a.SessionID
			}
		case a.Status == supervisor.StatusRunning && state == stateIdle:
			state = stateWorking
		}
	}
	return state, attention, notes
}

// trayMenu builds the tray menu from m. It only reads the core and the app, so tests drive
// it with Fyne's test app.
//
// The endpoint is read once, here: the daemon picks its address before the tray starts.
func (g *gui) trayMenu(m trayModel) *fyne.Menu {
	menu := fyne.NewMenu("Switchboard")
	g.fillTrayMenu(menu, m)
	return menu
}

// fillTrayMenu lays out menu's items from m. The permission choice lays the same menu out
// again (the tray shows this *fyne.Menu, and Refresh sends it to the panel again).
func (g *gui) fillTrayMenu(menu *fyne.Menu, m trayModel) {
	a, b, log := g.app, g.core, g.log
	endpoint := b.Endpoint()
	status := fyne.NewMenuItem(endpointLabel(endpoint), nil)
	status.Disabled = true
	items := []*fyne.MenuItem{status}
	if m.storeDown {
		down := fyne.NewMenuItem(labelStoreDown, nil)
		down.Disabled = true
		items = append(items, down)
	}

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

	var configs []*fyne.MenuItem
	for _, cc := range clientConfigs {
		configs = append(configs, fyne.NewMenuItem(cc.label, func() {
			token, err := b.ClientToken()
			if err != nil {
				log.Error("tray: client token unavailable, nothing copied", "err", err)
				return
			}
			a.Clipboard().SetContent(cc.text(b.Endpoint(), token))
			log.Info("tray: client config copied", "format", cc.label)
		}))
	}
	copyConfig := fyne.NewMenuItem(labelCopyConfig, nil)
	copyConfig.ChildMenu = fyne.NewMenu(labelCopyConfig, configs...)
	copyConfig.Disabled = endpoint == ""

	quitItem := fyne.NewMenuItem(labelQuit, g.quit)
	// Marked explicitly: Fyne otherwise recognises Quit by its translated label and, in
	// another locale, would append a second Quit of its own.
	quitItem.IsQuit = true

	sessions := fyne.NewMenuItem(labelSessions, func() { g.showSessions(m.attention) })
	if m.attention != "" {
		// The attention icon says someone waits: the item says who, and opens there.
		sessions.Label = labelSessionsAttention
	}

	rebuild := func() {
		g.fillTrayMenu(menu, m)
		menu.Refresh()
	}
	items = append(items, copyEndpoint, copyToken, copyConfig, fyne.NewMenuItemSeparator(),
		g.startAgentItem(m, rebuild), sessions,
		fyne.NewMenuItem(labelWork, g.showMainBoard), fyne.NewMenuItem(labelNewPacket, g.showNewPacket),
		fyne.NewMenuItem(labelAudit, g.showAudit),
		fyne.NewMenuItem(labelSettings, g.showSettings), g.startAtLoginItem(m.startAtLogin),
		fyne.NewMenuItemSeparator(), quitItem)
	menu.Items = items
}

// startAgentItem is "Start agent ▸ profile ▸ repository", and at its foot the permission
// mode the agents start in. Profiles whose command is not installed are shown greyed, so a
// person sees what could run and what to install; so are those without the chosen mode, and
// in full auto the repositories where agents get no worktree. rebuild lays the menu out
// again after the mode changes.
func (g *gui) startAgentItem(m trayModel, rebuild func()) *fyne.MenuItem {
	chosen := g.startPermission()
	var profiles []*fyne.MenuItem
	for _, p := range m.profiles {
		mode, why := modeFor(p, chosen)
		label := p.Name
		switch {
		case !p.Available:
			label += labelNotInstalled
		case why != "":
			label += why
		}
		it := fyne.NewMenuItem(label, nil)
		it.Disabled = !p.Available || why != ""
		var repos []*fyne.MenuItem
		for _, r := range m.repos {
			ri := fyne.NewMenuItem(repoLabel(r), func() { g.startFromTray(p.ID, r, mode) })
			if mode == profile.PermissionAuto && noWorktree(r) {
				ri.Label += labelNoWorktree
				ri.Disabled = true
			}
			repos = append(repos, ri)
		}
		if len(repos) == 0 {
			none := fyne.NewMenuItem(labelNoRepos, nil)
			none.Disabled = true
			repos = append(repos, none)
		}
		if !it.Disabled {
			it.ChildMenu = fyne.NewMenu(p.Name, repos...)
		}
		profiles = append(profiles, it)
	}
	item := fyne.NewMenuItem(labelStartAgent, nil)
	item.Disabled = len(profiles) == 0
	profiles = append(profiles, fyne.NewMenuItemSeparator())
	profiles = append(profiles, g.permissionItems(rebuild)...)
	item.ChildMenu = fyne.NewMenu(labelStartAgent, profiles...)
	return item
}

// repoLabel names a repository in a menu: its name, and the folder's base name when the
// name is something else.
func repoLabel(r store.Repository) string {
	base := filepath.Base(r.Path)
	if r.Name == "" || r.Name == base {
		return shorten(base, maxStatusLabel)
	}
	return shorten(r.Name+" ("+base+")", maxStatusLabel)
}

// startAgent starts profile in repository in permission mode; confirm records the person's
// confirmation of full auto for the repository. It runs off the Fyne thread: the call
// commits a transaction and starts a process.
func (g *gui) startAgent(profileID, repository string, mode profile.Permission, confirm bool) {
	args := mcpserver.AgentStartArgs{Profile: profileID, RepositoryID: repository, Permission: mode, ConfirmFullAuto: confirm}
	out, err := invoke(g, mcpserver.MethodAgentStart, args)
	if emptyRepository(err) {
		// Where the new agent would show up, the way on is offered.
		fyne.Do(func() {
			g.showSessions("")
			g.offerFirstCommit(g.sessions.win, args, g.trayStarted)
		})
		return
	}
	g.trayStarted(out, err)
}

// trayStarted tells of an agent the tray started: its session shown, or a
// notification of why it did not start.
func (g *gui) trayStarted(out mcpserver.AgentStarted, err error) {
	if err != nil {
		g.log.Error("tray: start agent", "err", err)
		g.app.SendNotification(fyne.NewNotification("Switchboard: the agent did not start", err.Error()))
		return
	}
	g.log.Info("tray: agent started", "session", out.SessionID, "pid", out.PID, "permission", out.Permission)
	fyne.Do(func() { g.showSessions(out.SessionID) })
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
