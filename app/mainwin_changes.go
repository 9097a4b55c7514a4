package app

// The main window's Changes tabs: an agent's (its worktree, while it is
// live) and a packet's (its commits). Each shows the one Changes view of
// its source, made the first time it is shown and kept while the window
// is open: coming back to a packet finds its scroll and the comments not
// yet sent as they were left. There is no Changes window.

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// changesParts are the main window's Changes tabs; on the Fyne goroutine
// only.
type changesParts struct {
	agentChangesTab *container.TabItem
	agentChanges    *fyne.Container // the agent's view, or noWorktree
	noWorktree      fyne.CanvasObject
	// agentWorktree is whether the agent shown has a live worktree.
	agentWorktree bool

	packetTabs       *container.AppTabs
	packetChangesTab *container.TabItem
	packetChanges    *fyne.Container // the packet's view

	// shownChanges is the view on screen, nil when none is.
	shownChanges *changesView
}

// newAgentChangesTab is the agent's Changes tab, empty until shown.
func (w *sessionsWindow) newAgentChangesTab() *container.TabItem {
	note := widget.NewLabel(labelNoLiveWorktree)
	note.Wrapping = fyne.TextWrapWord
	w.noWorktree = container.NewVBox(note)
	w.agentChanges = container.NewStack(w.noWorktree)
	w.agentChangesTab = container.NewTabItemWithIcon(labelChanges, theme.DocumentIcon(), w.agentChanges)
	return w.agentChangesTab
}

// newPacketTabs puts a packet's detail and its Changes in tabs.
func (w *sessionsWindow) newPacketTabs(detail fyne.CanvasObject) fyne.CanvasObject {
	w.packetChanges = container.NewStack()
	w.packetChangesTab = container.NewTabItemWithIcon(labelChanges, theme.DocumentIcon(), w.packetChanges)
	w.packetTabs = container.NewAppTabs(container.NewTabItemWithIcon(labelTabDetails, theme.InfoIcon(), detail), w.packetChangesTab)
	w.packetTabs.OnSelected = func(*container.TabItem) {
		if !w.fillPacketChanges() {
			w.hideChanges()
		}
	}
	return w.packetTabs
}

// changesOf is src's view, made the first time it is asked for.
func (w *sessionsWindow) changesOf(src changesSource) *changesView {
	if v, ok := w.g.changes[src]; ok {
		return v
	}
	v := newChangesView(w.g, w.win, src)
	if w.g.changes == nil {
		w.g.changes = map[changesSource]*changesView{}
	}
	w.g.changes[src] = v
	if src.sessionID != "" {
		// A live worktree changes under the agent: read while on screen.
		go v.refreshLoop(changesRefreshEvery)
	}
	return v
}

// showChanges puts v in holder as the view on screen and reads it: the
// packet may have come back from its agent with new commits since, and
// what its status line said was about the view as it was.
func (w *sessionsWindow) showChanges(holder *fyne.Container, v *changesView) {
	if w.shownChanges != nil && w.shownChanges != v {
		w.shownChanges.visible.Store(false)
	}
	w.shownChanges = v
	v.visible.Store(true)
	if len(holder.Objects) != 1 || holder.Objects[0] != v.content {
		holder.Objects = []fyne.CanvasObject{v.content}
		holder.Refresh()
	}
	v.mu.Lock() // the refresh loop's updates wait
	defer v.mu.Unlock()
	v.load()
}

// hideChanges says that no Changes view is on screen.
func (w *sessionsWindow) hideChanges() {
	if w.shownChanges != nil {
		w.shownChanges.visible.Store(false)
		w.shownChanges = nil
	}
}

// fillPacketChanges shows the packet's Changes view when its tab is the
// one chosen, and says whether it is.
func (w *sessionsWindow) fillPacketChanges() bool {
	if w.packetTabs.Selected() != w.packetChangesTab || !strings.HasPrefix(w.node, nodePacket) {
		return false
	}
	v := w.changesOf(changesSource{packetID: strings.TrimPrefix(w.node, nodePacket)})
	if w.shownChanges != v {
		w.showChanges(w.packetChanges, v)
	}
	return true
}

// fillAgentChanges shows the agent's Changes view when its tab is the
// one chosen: its worktree's, or why it has none.
func (w *sessionsWindow) fillAgentChanges() {
	if w.tabs.Selected() != w.agentChangesTab || w.selected == "" {
		w.hideChanges()
		return
	}
	if !w.agentWorktree {
		w.hideChanges()
		if len(w.agentChanges.Objects) != 1 || w.agentChanges.Objects[0] != w.noWorktree {
			w.agentChanges.Objects = []fyne.CanvasObject{w.noWorktree}
			w.agentChanges.Refresh()
		}
		return
	}
	v := w.changesOf(changesSource{sessionID: w.selected})
	if w.shownChanges != v {
		w.showChanges(w.agentChanges, v)
	}
}

// showChangesTab notes from the agent's detail whether it has a live
// worktree whose changes the tab shows.
func (w *sessionsWindow) showChangesTab(s store.Session) {
	w.agentWorktree = s.State.Live() && s.Workspace != nil
	w.fillAgentChanges()
}

// closeChanges stops every view's refreshes as the window closes.
func (w *sessionsWindow) closeChanges() {
	w.hideChanges()
	for src, v := range w.g.changes {
		close(v.stop)
		delete(w.g.changes, src)
	}
}

// showPacketChanges shows the main window on packet id's Changes tab, its
// change read again, and returns the view.
func (g *gui) showPacketChanges(packetID string) *changesView {
	g.showMain()
	w := g.sessions
	w.selectNode(nodePacket + packetID)
	shown := w.shownChanges
	w.packetTabs.Select(w.packetChangesTab)
	w.fillPacketChanges()
	if v := w.shownChanges; v == shown {
		// Shown already: read again all the same, as a click asks.
		v.mu.Lock()
		v.load()
		v.mu.Unlock()
	}
	return w.shownChanges
}
