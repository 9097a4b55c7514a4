package app

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Work board labels, also what the tests tap.
const (
	labelWorkAllRepos      = "All repositories"
	labelWorkNewPacket     = "New packet"
	labelWorkCreate        = "Create"
	labelWorkCancelPacket  = "Cancel packet"
	labelWorkRequeue       = "Requeue"
	labelWorkApprove       = "Approve"
	labelWorkRequestChange = "Request changes"
	labelWorkReject        = "Reject"
	labelWorkNoPacket      = "Select a packet on the board, or create one."
	// labelNewPacket is the tray's item: the Work board with its form.
	labelNewPacket = "New packet…"

	// workListLimit is how many packets the window reads (work.list's most).
	workListLimit = 1000
	// workPreviewLimit is the largest inline artifact shown in full.
	workPreviewLimit = 4 << 10
)

// workWindow is a view of the main window's centre: the Work board of
// packets by state (drag to requeue or cancel), create, the selected
// packet's artifacts, changes and verdicts; or that packet's detail alone.
// The main window re-reads it (sessionsWindow.reload).
type workWindow struct {
	g   *gui
	win fyne.Window

	// All fields below are on the Fyne goroutine only.
	repoFilter *widget.Select
	repos      []store.Repository          // as listed, for the selects
	repoByID   map[string]store.Repository // for names
	filterID   string                      // repository the list shows; "" for all
	showFilter *widget.Select              // which packets: all, or done with unlanded changes (work_list.go)
	packets    []store.Packet              // as last read
	cols       [workColCount]*workColumn   // the board (work_board.go)
	selected   string                      // packet id of the detail
	cursor     string                      // packet id of the highlighted card: the keyboard's, Enter opens it
	// highlighting is true while the board marks the cursor's card, so
	// that the lists' selection is not taken for a click.
	highlighting bool
	ghost        *workGhost // the card under the pointer while one is dragged
	detail       mcpserver.WorkGetResult

	newPacket *widget.Button
	status    *widget.Label // the last error or outcome

	title    *widget.Label
	subtitle *widget.Label
	// prLink is the pull request a landing opened, shown under the
	// subtitle; hidden otherwise.
	prLink *widget.Hyperlink
	// stateAsked is the packet whose pull request's state was last asked
	// of gh (once per packet shown, not on every refresh), and prState
	// what gh said, "" until it has.
	stateAsked, prState string
	facts               *widget.Form
	body                *fyne.Container // sections of the selected packet
	cancel              *widget.Button
	// startOnBtn starts an agent on the selected queued packet (work_start.go).
	startOnBtn *widget.Button
	actions    *fyne.Container // the buttons above the detail
	requeue    *widget.Button
	approve    *widget.Button
	changes    *widget.Button
	reject     *widget.Button
	detailUI   fyne.CanvasObject // title, buttons and body; hidden with no selection
	empty      fyne.CanvasObject

	// bodyScroll scrolls body; refreshed when body changes, so that it
	// takes the new height (a box refreshed alone does not tell it).
	bodyScroll *container.Scroll

	form   *workForm   // the open New packet form, if any
	prompt *workPrompt // the open reason or notes prompt, if any

	// now is the clock the packets' ages and leases are measured against;
	// time.Now, a fixed time in the golden-image tests.
	now func() time.Time

	// conflicts are the conflicting packets' statuses, by packet id, as
	// last read (work_conflicts.go); conflictHunks is the last hunks
	// dialog's content.
	conflicts     map[string]mcpserver.PacketConflicts
	conflictHunks *fyne.Container
}

// showNewPacket is the tray's New packet…: the main window's Work board
// with its form.
func (g *gui) showNewPacket() {
	g.showMainBoard()
	g.sessions.board.openForm()
}

// newWorkView builds the board over the selected packet's detail for win,
// or with withBoard false the detail alone: views of the main window's
// centre, whose window owns the refreshes.
func newWorkView(g *gui, win fyne.Window, withBoard bool) (*workWindow, fyne.CanvasObject) {
	w := &workWindow{g: g, win: win, now: time.Now}

	w.repoFilter = widget.NewSelect([]string{labelWorkAllRepos}, nil)
	w.repoFilter.SetSelected(labelWorkAllRepos)
	w.repoFilter.OnChanged = func(s string) {
		w.filterID = w.repoIDOf(s)
		w.reload()
	}
	w.newPacket = widget.NewButtonWithIcon(labelWorkNewPacket, theme.ContentAddIcon(), w.openForm)
	w.newPacket.Importance = widget.HighImportance

	w.status = widget.NewLabel("")
	w.status.Wrapping = fyne.TextWrapWord
	w.status.Importance = widget.DangerImportance
	// Shown once there is something to say: an empty line would leave a
	// blank strip under the panes.
	w.status.Hide()

	w.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.title.Wrapping = fyne.TextWrapWord
	w.title.SizeName = theme.SizeNameSubHeadingText
	w.subtitle = widget.NewLabel("")
	w.subtitle.Wrapping = fyne.TextWrapWord
	w.body = container.NewVBox()
	w.cancel = widget.NewButtonWithIcon(labelWorkCancelPacket, theme.CancelIcon(), w.askCancel)
	w.requeue = widget.NewButtonWithIcon(labelWorkRequeue, theme.ViewRefreshIcon(), w.askRequeue)
	w.approve = widget.NewButtonWithIcon(labelWorkApprove, theme.ConfirmIcon(), func() { w.verdict(store.VerdictApprove, "") })
	w.approve.Importance = widget.SuccessImportance
	w.changes = widget.NewButtonWithIcon(labelWorkRequestChange, theme.DocumentCreateIcon(), w.askChanges)
	w.changes.Importance = widget.WarningImportance
	w.reject = widget.NewButtonWithIcon(labelWorkReject, theme.DeleteIcon(), w.askReject)
	w.reject.Importance = widget.DangerImportance

	w.startOnBtn = w.newStartOnButton()
	w.actions = container.NewHBox(w.startOnBtn, w.approve, w.changes, w.reject, layout.NewSpacer(), w.requeue, w.cancel)
	w.prLink = widget.NewHyperlink("", nil)
	w.prLink.Hide()
	head := container.NewVBox(w.title, w.subtitle, w.prLink, w.actions, widget.NewSeparator())
	w.bodyScroll = container.NewVScroll(w.body)
	w.detailUI = container.NewBorder(head, nil, nil, nil, w.bodyScroll)
	w.empty = container.NewCenter(widget.NewLabel(labelWorkNoPacket))
	w.detailUI.Hide()

	board := container.NewBorder(
		w.filterBar(),
		nil, nil, nil, w.newBoard())
	detail := container.NewPadded(container.NewStack(w.empty, w.detailUI))
	w.showDetail()
	if !withBoard {
		// The board is built all the same, unseen: the actions re-read
		// through it.
		return w, container.NewBorder(nil, w.status, nil, nil, detail)
	}
	// The board over the detail: six columns need the window's width.
	split := container.NewVSplit(board, detail)
	split.SetOffset(0.46)
	return w, container.NewStack(container.NewBorder(nil, w.status, nil, nil, split), w.newGhost())
}

// fail shows an error in the status line and logs it.
func (w *workWindow) fail(what string, err error) {
	w.g.log.Warn("work: "+what, "err", err)
	w.showStatus(what+": "+err.Error(), widget.DangerImportance)
}

// note shows an outcome in the status line, for a while (expire).
func (w *workWindow) note(text string) {
	w.showStatus(text, widget.MediumImportance)
	expire(w.status, text)
}

// showStatus shows the status line, laying the window out again: the
// panes above give it room.
func (w *workWindow) showStatus(text string, imp widget.Importance) {
	w.status.Importance = imp
	w.status.SetText(text)
	if !w.status.Visible() {
		w.status.Show()
		w.win.Content().Refresh()
	}
}
