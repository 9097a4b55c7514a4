package app

// The main window's layout: the sidebar (repositories, their agents and
// packets), the centre showing the selected item, and the questions
// waiting in a column of their own. What it shows of an agent is the
// Sessions code (sessions.go); of a packet and of the board, the Work
// window's (work.go), built for this window.

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Main window labels, also what the tests look for.
const (
	labelTabTerminal = "Terminal"
	labelTabReplay   = "Replay"
	labelTabReports  = "Reports"
	labelTabDetails  = "Details"

	labelNoLiveWorktree = "This agent has no live worktree: its work, once published, is on its packet."
)

// mainParts are the main window's parts around an agent's view; all on
// the Fyne goroutine only.
type mainParts struct {
	tree  *widget.Tree
	model sideModel // replaced whole by each reload
	node  string    // the sidebar row shown in the centre: selection is identity
	lit   string    // the sidebar row highlighted, as the tree last said

	packets   sidePackets // as last read, grouped for the sidebar
	repoOrder []string    // the repositories' ids as listed
	// shownRepos are the repositories' rows the sidebar has shown, opened
	// the first time.
	shownRepos map[string]bool

	centre     *fyne.Container // one of the views below
	agentView  fyne.CanvasObject
	packetView fyne.CanvasObject
	boardView  fyne.CanvasObject
	repoView   fyne.CanvasObject
	emptyView  fyne.CanvasObject
	empty      *widget.Label
	emptyAdd   *widget.Button // Add repository…, while there is none

	tabs    *container.AppTabs
	termTab *container.TabItem
	// The Changes tabs (mainwin_changes.go): the agent's and the packet's.
	changesParts

	board  *workWindow // the Work board view
	packet *workWindow // the packet view: its detail alone
	repo   *repoPane

	questions *questionColumn

	// held is the live terminal's newest screen, held while its tab is not
	// the one shown.
	held heldFrame
}

// heldFrame is a screen for a terminal.
type heldFrame struct {
	term *termview.Terminal
	snap *vt.Snapshot
}

// showMain opens the main window, or brings it forward.
func (g *gui) showMain() { g.showSessions("") }

// showMainBoard opens the main window on the Work board.
func (g *gui) showMainBoard() {
	g.showSessions("")
	g.sessions.selectNode(nodeBoard)
}

func newSessionsWindow(g *gui) *sessionsWindow {
	w := &sessionsWindow{g: g, win: g.app.NewWindow(titleSessions), stopRefresh: make(chan struct{})}

	w.header = widget.NewLabelWithStyle(labelNoSession, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.status = widget.NewLabel("")
	// A long header or status line is cut, not laid out whole: at its full
	// width it would set the window's least width and squeeze the sidebar.
	w.header.Truncation = fyne.TextTruncateEllipsis
	w.status.Truncation = fyne.TextTruncateEllipsis
	w.stop = widget.NewButtonWithIcon(labelStop, theme.MediaStopIcon(), func() { w.stopAgent(false) })
	w.kill = widget.NewButtonWithIcon(labelKill, theme.CancelIcon(), func() { w.stopAgent(true) })
	w.kill.Importance = widget.DangerImportance
	w.stop.Disable()
	w.kill.Disable()
	w.resume = w.newResumeButton()
	w.copyID = widget.NewButtonWithIcon(labelCopyID, theme.ContentCopyIcon(), func() {
		w.g.app.Clipboard().SetContent(w.shownID)
		w.copyID.SetText("Copied")
		w.copyID.SetIcon(theme.ConfirmIcon())
	})
	w.termBox = container.NewStack(widget.NewLabel(""))

	// Reports wrap, so each takes the lines it needs: a list's rows are
	// all one height and a long report would run over the next. There
	// are at most a hundred (session.get's default).
	w.reports = container.NewVBox()

	w.termTab = container.NewTabItemWithIcon(labelTabTerminal, theme.ComputerIcon(), w.termBox)
	w.tabs = container.NewAppTabs(w.termTab, w.newAgentChangesTab(),
		container.NewTabItemWithIcon(labelTabReports, theme.ListIcon(), container.NewVScroll(w.reports)))
	w.tabs.OnSelected = func(t *container.TabItem) {
		if t == w.termTab {
			w.showHeldFrame()
			w.focusTerminal()
		}
		w.fillAgentChanges()
	}
	// The buttons keep their own height, centred beside the two lines.
	top := container.NewBorder(nil, nil, nil, container.NewCenter(container.NewHBox(w.copyID, w.resume, w.stop, w.kill)), container.NewVBox(w.header, w.status))
	w.agentView = container.NewBorder(top, nil, nil, nil, w.tabs)

	var packetContent, boardContent fyne.CanvasObject
	w.packet, packetContent = newWorkView(g, w.win, false)
	w.board, boardContent = newWorkView(g, w.win, true)
	w.packetView, w.boardView = w.newPacketTabs(packetContent), boardContent
	w.repo = newRepoPane(w)
	w.repoView = w.repo.content
	w.empty = widget.NewLabel("")
	w.empty.Wrapping = fyne.TextWrapWord
	w.empty.Alignment = fyne.TextAlignCenter
	w.emptyAdd = widget.NewButtonWithIcon(labelAddRepo, theme.FolderNewIcon(), w.askAddRepo)
	w.emptyAdd.Importance = widget.HighImportance
	// The note keeps a width to be read at: centred alone, a wrapped label
	// would take a word's.
	emptyFloor := canvas.NewRectangle(color.Transparent)
	emptyFloor.SetMinSize(fyne.NewSize(440, 0))
	w.emptyView = container.NewCenter(container.NewVBox(emptyFloor, w.empty, container.NewCenter(w.emptyAdd)))
	w.centre = container.NewStack(w.agentView, w.packetView, w.boardView, w.repoView, w.emptyView)
	w.showView(w.emptyView)

	w.tree = newSideTree(&w.model)
	w.tree.OnSelected = func(id widget.TreeNodeID) {
		w.lit = id
		// The window selects the row of what it shows already (reselect);
		// a row not yet shown is the person's click.
		clicked := id != w.node
		w.selectNode(id)
		if clicked && strings.HasPrefix(id, nodeAgent) {
			// The tree takes the keyboard after a click on its row:
			// given back to the terminal once the click is done, so
			// that what the person types next reaches the agent.
			fyne.Do(w.focusTerminal)
		}
	}
	w.tree.OnUnselected = func(id widget.TreeNodeID) {
		if w.lit == id {
			w.lit = ""
		}
	}
	addSide := widget.NewButtonWithIcon(labelAddRepo, theme.FolderNewIcon(), w.askAddRepo)
	var start *widget.Button
	start = widget.NewButtonWithIcon(labelStartAgent, theme.MediaPlayIcon(), func() { w.showStartMenu(start) })
	start.Importance = widget.HighImportance
	sidebar := atLeast(fyne.NewSize(sidebarMinWidth, 0), container.NewBorder(nil, container.NewVBox(start, addSide), nil, nil, w.tree))

	w.questions = newQuestionColumn(w)
	// The board's keys (arrows, Enter, N) while it is shown and no field
	// has the keyboard, as in the Work window.
	w.win.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if w.boardView.Visible() {
			w.board.typedKey(ev)
		}
	})
	split := container.NewHSplit(sidebar, container.NewPadded(w.centre))
	split.SetOffset(0.24)
	w.win.SetContent(container.NewBorder(g.noTrayNotice(), nil, nil, w.questions.content, split))
	g.closeWithoutTray(w.win)
	g.place(w.win, windowSessions, func() {
		close(w.stopRefresh)
		w.leaveAgent()
		w.closeChanges()
		g.sessions = nil
	})
	// Subscribed before the first read (showSessions'), so a change in
	// between is not missed.
	changed := g.core.Registry().Changed()
	go w.refreshLoop(changed)
	g.sessions = w
	g.windowMenu(g.menuModel())
	return w
}

// terminal is the live terminal shown, or nil.
func (w *sessionsWindow) terminal() fyne.Focusable {
	if len(w.termBox.Objects) == 0 {
		return nil
	}
	f, _ := w.termBox.Objects[0].(fyne.Focusable)
	return f
}

// focusTerminal gives the keyboard to the live terminal shown, if any.
func (w *sessionsWindow) focusTerminal() {
	if term := w.terminal(); term != nil && w.agentView.Visible() && w.tabs.Selected() == w.termTab {
		w.win.Canvas().Focus(term)
	}
}

// showView shows v in the centre, alone.
func (w *sessionsWindow) showView(v fyne.CanvasObject) {
	for _, o := range w.centre.Objects {
		show(o, o == v)
	}
	// The view shown, not the centre: its Refresh would refresh every
	// view, the hidden board's and packet's too, at each selection.
	v.Refresh()
}

// selectNode shows the sidebar's row id in the centre; a group's row
// (repository's packets by state, ended agents) opens or closes instead.
func (w *sessionsWindow) selectNode(id string) {
	if id == w.node {
		return
	}
	if !strings.HasPrefix(id, nodeAgent) && isItem(id) {
		w.leaveAgent()
	}
	switch {
	case id == nodeBoard:
		w.node = id
		w.reselect()
		w.showView(w.boardView)
		w.board.reload()
	case strings.HasPrefix(id, nodeAgent):
		w.selectSession(strings.TrimPrefix(id, nodeAgent))
	case strings.HasPrefix(id, nodePacket):
		w.node = id
		w.reselect()
		w.showView(w.packetView)
		if w.packet.repoByID == nil {
			w.packet.setRepos(w.repoList())
		}
		w.packet.selectPacket(strings.TrimPrefix(id, nodePacket))
		w.fillPacketChanges()
	case strings.HasPrefix(id, nodeRepo):
		w.node = id
		w.reselect()
		w.showView(w.repoView)
		w.repo.show(w.repos[strings.TrimPrefix(id, nodeRepo)])
	default:
		// A group: the highlight goes back to what the centre shows.
		w.tree.ToggleBranch(id)
		w.reselect()
	}
}

// isItem is whether sidebar row id shows an item in the centre, rather
// than being a group.
func isItem(id string) bool {
	return id == nodeBoard || strings.HasPrefix(id, nodeAgent) || strings.HasPrefix(id, nodePacket) || strings.HasPrefix(id, nodeRepo)
}

// leaveAgent stops painting the agent shown before the centre shows
// something else: a hidden terminal would still take its frames.
func (w *sessionsWindow) leaveAgent() {
	if w.cancelFrames != nil {
		w.cancelFrames()
		w.cancelFrames = nil
	}
	w.held = heldFrame{}
	if w.replay != nil {
		w.replay.close()
		w.replay = nil
	}
	w.hideChanges()
	w.selected = ""
}

// showFrame paints snap on term, the live terminal shown, or holds it
// while the Terminal tab is not the one shown: a hidden terminal painted at
// each frame would have the window painted 30 times a second with nothing
// new to see.
func (w *sessionsWindow) showFrame(term *termview.Terminal, snap *vt.Snapshot) {
	if w.tabs.Selected() != w.termTab {
		w.held = heldFrame{term, snap}
		return
	}
	term.SetSnapshot(snap)
}

// showHeldFrame paints the screen held while the Terminal tab was hidden,
// if it is the terminal shown's (not one left as the frame came).
func (w *sessionsWindow) showHeldFrame() {
	if h := w.held; h.term != nil && w.terminal() == fyne.Focusable(h.term) {
		h.term.SetSnapshot(h.snap)
	}
	w.held = heldFrame{}
}

// repoList is the repositories as last read, in no particular order.
func (w *sessionsWindow) repoList() []store.Repository {
	out := make([]store.Repository, 0, len(w.repos))
	for _, r := range w.repos {
		out = append(out, r)
	}
	return out
}

// reselect highlights the row of what the centre shows, wherever it is
// now: rows move as agents start and packets arrive, and a highlight left
// on the old row would point at another item than the one shown (and Stop
// at the wrong agent). The groups stay as the person left them.
func (w *sessionsWindow) reselect() {
	if w.node == "" || !w.model.has(w.node) {
		w.tree.UnselectAll()
		return
	}
	w.tree.Select(w.node) // OnSelected finds it already shown
}

// reveal opens the groups around the row of what the centre shows, newly
// chosen (a new agent, a question's Show agent), and scrolls to it.
func (w *sessionsWindow) reveal() {
	if !w.model.has(w.node) {
		return
	}
	for p := w.model.parentOf(w.node); p != ""; p = w.model.parentOf(p) {
		w.tree.OpenBranch(p)
	}
	w.tree.ScrollTo(w.node)
}

// rebuildSide lays the sidebar out again from what was last read.
func (w *sessionsWindow) rebuildSide() {
	repos := make([]store.Repository, 0, len(w.repos))
	for _, r := range w.repoOrder {
		if rr, ok := w.repos[r]; ok {
			repos = append(repos, rr)
		}
	}
	m := buildSide(repos, w.sessions, w.packets, w.sideBadge)
	for _, id := range m.children[""] {
		// A repository shows its agents and packet groups when it first
		// appears; after that it stays as the person left it. Opened
		// before the model holds its rows: each OpenBranch lays the tree
		// out again, and the one Refresh below does it once for all.
		if strings.HasPrefix(id, nodeRepo) && !w.shownRepos[id] {
			if w.shownRepos == nil {
				w.shownRepos = map[string]bool{}
			}
			w.shownRepos[id] = true
			w.tree.OpenBranch(id)
		}
	}
	w.model = m
	if w.node != "" && !w.model.has(w.node) {
		// What the centre showed is gone (a repository removed, a packet
		// beyond the list's reach): it shows what to do next instead.
		w.leaveAgent()
		w.node = ""
		w.showView(w.emptyView)
	}
	w.tree.Refresh()
	w.reselect()
}

// sideBadge is a session's state in words and its dot's colour.
func (w *sessionsWindow) sideBadge(s store.Session) (string, fyne.ThemeColorName) {
	b := w.badge(s)
	mark, text, ok := strings.Cut(b, " ")
	if !ok {
		return b, theme.ColorNameDisabled
	}
	switch mark {
	case "⚠":
		return text, theme.ColorNameWarning
	case "●":
		return text, theme.ColorNameSuccess
	case "○":
		return text, theme.ColorNamePlaceHolder
	case "✕":
		return text, theme.ColorNameError
	case "■":
		return text, theme.ColorNameDisabled
	}
	return text, theme.ColorNamePrimary
}

// askAddRepo registers a folder the person picks, saying first which
// folder it is: a picker makes the wrong folder easy to take.
func (w *sessionsWindow) askAddRepo() {
	dialog.ShowFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			return
		}
		path := dir.Path()
		dialog.ShowConfirm("Add this repository?", "Agents will work in "+path+" (in worktrees of their own when it is a git repository).",
			func(ok bool) {
				if !ok {
					return
				}
				out, err := invoke(w.g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: path})
				if err != nil {
					dialog.ShowError(err, w.win)
					return
				}
				w.reload()
				w.selectNode(nodeRepo + out.Repository.ID)
			}, w.win)
	}, w.win)
}

// showTermTab names the first tab for what it holds (the live terminal,
// or the replay of an ended agent) and brings it forward.
func (w *sessionsWindow) showTermTab(name string) {
	w.termTab.Text = name
	if name == labelTabReplay {
		w.termTab.Icon = theme.MediaPlayIcon()
	} else {
		w.termTab.Icon = theme.ComputerIcon()
	}
	w.tabs.Select(w.termTab)
	w.tabs.Refresh()
}

// showStartMenu pops the tray's Start agent menu (profile ▸ repository)
// up under b: the window offers what the tray does.
func (w *sessionsWindow) showStartMenu(b *widget.Button) {
	for _, it := range w.g.trayMenu(w.g.menuModel()).Items {
		if it.Label == labelStartAgent && it.ChildMenu != nil {
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b).AddXY(0, b.Size().Height)
			widget.ShowPopUpMenuAtPosition(it.ChildMenu, w.win.Canvas(), pos)
			return
		}
	}
}

// atLeast stacks objs, as container.NewStack does, at no less than min. A
// floor of layout, not a transparent rectangle: the GL painter skips such
// a rectangle, but the test driver's software painter fills it pixel by
// pixel at every frame, and the window's, the sidebar's and the questions'
// took 32 ms of an 84 ms frame of the main window's benchmarks.
func atLeast(min fyne.Size, objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(floorLayout{min}, objs...)
}

type floorLayout struct{ min fyne.Size }

func (l floorLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.Position{})
	}
}

func (l floorLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := l.min
	for _, o := range objs {
		if o.Visible() {
			m = m.Max(o.MinSize())
		}
	}
	return m
}
