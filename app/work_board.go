package app

// The Work board: one column per stage of a packet's life, each
// a virtualized list of cards (only the visible cards are widgets, so a
// reload per change costs the same with 50 packets or 5,000), with drag
// and drop to requeue or cancel and the keyboard to move between cards.

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The board's columns, in workflow order.
const (
	workColQueued = iota
	workColWorking
	workColReview
	workColUnlanded
	workColDone
	workColFailed
	workColCount
)

// workColumnTitles head the columns. Claimed and in progress share one:
// both are an agent at work under a lease. Done packets with unlanded
// changes (still only on the agent's branch) have a column of their own:
// the person still has to land them.
var workColumnTitles = [workColCount]string{
	"Queued", "Claimed / in progress", "In review", "Done, unlanded", "Done", "Failed / cancelled",
}

// workColumnOf is the column a packet shows in.
func workColumnOf(p store.Packet) int {
	switch p.State {
	case store.PacketQueued:
		return workColQueued
	case store.PacketClaimed, store.PacketInProgress:
		return workColWorking
	case store.PacketInReview:
		return workColReview
	case store.PacketDone:
		if unlanded(p) {
			return workColUnlanded
		}
		return workColDone
	}
	return workColFailed
}

// workColumns sorts packets into the columns. The queue is in claim order
// (priority, then age); the other columns newest first, as listed.
func workColumns(packets []store.Packet) [workColCount][]store.Packet {
	var cols [workColCount][]store.Packet
	for _, p := range packets {
		c := workColumnOf(p)
		cols[c] = append(cols[c], p)
	}
	slices.SortStableFunc(cols[workColQueued], func(a, b store.Packet) int {
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		return int(a.Seq) - int(b.Seq)
	})
	return cols
}

// workColumn is one column of the board: its heading with the count, and
// a list of its cards.
type workColumn struct {
	index int
	cards []store.Packet
	head  *widget.Label
	list  *widget.List
	box   fyne.CanvasObject // heading and list: where a drop lands
}

// newBoard builds the columns; cards come with showRows.
func (w *workWindow) newBoard() fyne.CanvasObject {
	boxes := make([]fyne.CanvasObject, 0, workColCount)
	for i := range workColCount {
		c := &workColumn{index: i}
		c.head = widget.NewLabel(workColumnTitles[i] + " (0)")
		c.head.TextStyle.Bold = true
		c.head.Truncation = fyne.TextTruncateEllipsis
		c.list = widget.NewList(func() int { return len(c.cards) },
			func() fyne.CanvasObject { return newWorkCard(w) },
			func(id widget.ListItemID, o fyne.CanvasObject) {
				if id < len(c.cards) {
					o.(*workCard).show(c.cards[id])
				}
			})
		c.list.OnSelected = func(id widget.ListItemID) {
			if w.highlighting || id >= len(c.cards) {
				return
			}
			// A click is a selection: the keyboard goes on from here,
			// to the board, not to the list.
			w.win.Canvas().Unfocus()
			w.cursor = c.cards[id].ID
			w.selectPacket(c.cards[id].ID)
			w.highlight()
		}
		c.box = container.NewBorder(c.head, nil, nil, nil, c.list)
		w.cols[i] = c
		boxes = append(boxes, c.box)
	}
	return container.NewGridWithColumns(workColCount, boxes...)
}

// showRows shows the packets the filter lets through, each in its
// column, keeping the selection highlighted when its packet is among
// them. Only the headings and the visible cards are redrawn.
func (w *workWindow) showRows() {
	cols := workColumns(w.shownPackets())
	for i, c := range w.cols {
		c.cards = cols[i]
		workSetText(c.head, fmt.Sprintf("%s (%d)", workColumnTitles[i], len(c.cards)))
		c.list.Refresh()
	}
	if _, _, ok := w.find(w.cursor); !ok {
		w.cursor = w.selected
	}
	w.highlight()
}

// find is the column and row of a packet on the board.
func (w *workWindow) find(id string) (col, row int, ok bool) {
	if id == "" {
		return 0, 0, false
	}
	for _, c := range w.cols {
		if i := slices.IndexFunc(c.cards, func(p store.Packet) bool { return p.ID == id }); i >= 0 {
			return c.index, i, true
		}
	}
	return 0, 0, false
}

// highlight marks the cursor's card, in its column only.
func (w *workWindow) highlight() {
	w.highlighting = true
	defer func() { w.highlighting = false }()
	col, row, ok := w.find(w.cursor)
	for _, c := range w.cols {
		if ok && c.index == col {
			c.list.Select(row)
		} else {
			c.list.UnselectAll()
		}
	}
}

// typedKey is the board's keyboard, when no field has the focus: arrows
// move between cards and columns, Enter opens the card, N a new packet.
func (w *workWindow) typedKey(ev *fyne.KeyEvent) {
	if w.win.Canvas().Overlays().Top() != nil {
		// A dialog (the form, a prompt) or a select's menu is open:
		// the board behind it does not move.
		return
	}
	switch ev.Name {
	case fyne.KeyN:
		w.openForm()
	case fyne.KeyReturn, fyne.KeyEnter:
		if _, _, ok := w.find(w.cursor); ok {
			w.selectPacket(w.cursor)
			w.highlight()
		}
	case fyne.KeyUp, fyne.KeyDown, fyne.KeyLeft, fyne.KeyRight:
		w.moveCursor(ev.Name)
	}
}

// moveCursor moves the highlight one card up or down, or to the next
// column with cards left or right, at the same height where it can.
func (w *workWindow) moveCursor(k fyne.KeyName) {
	col, row, ok := w.find(w.cursor)
	if !ok {
		// Nothing highlighted yet: the first card of the board.
		for _, c := range w.cols {
			if len(c.cards) > 0 {
				w.cursor = c.cards[0].ID
				w.highlight()
				return
			}
		}
		return
	}
	switch k {
	case fyne.KeyUp:
		row = max(0, row-1)
	case fyne.KeyDown:
		row = min(len(w.cols[col].cards)-1, row+1)
	case fyne.KeyLeft, fyne.KeyRight:
		step := 1
		if k == fyne.KeyLeft {
			step = -1
		}
		next := col + step
		for next >= 0 && next < workColCount && len(w.cols[next].cards) == 0 {
			next += step
		}
		if next < 0 || next >= workColCount {
			return
		}
		col, row = next, min(row, len(w.cols[next].cards)-1)
	}
	w.cursor = w.cols[col].cards[row].ID
	w.highlight()
}

// columnAt is the column under an absolute position on the window's
// canvas, or -1.
func (w *workWindow) columnAt(pos fyne.Position) int {
	d := w.g.app.Driver()
	for _, c := range w.cols {
		at, size := d.AbsolutePositionForObject(c.box), c.box.Size()
		if pos.X >= at.X && pos.X < at.X+size.Width && pos.Y >= at.Y && pos.Y < at.Y+size.Height {
			return c.index
		}
	}
	return -1
}

// workDropAllowed says whether a packet may be dropped on a column: onto
// Queued what Requeue takes, onto Failed / cancelled what Cancel takes.
// Every other drop snaps back.
func workDropAllowed(p store.Packet, col int) bool {
	switch col {
	case workColQueued:
		return workRequeueable(p.State)
	case workColFailed:
		return !p.State.Terminal()
	}
	return false
}

// workRequeueable are the states Requeue takes a packet back from.
func workRequeueable(s store.PacketState) bool {
	return slices.Contains([]store.PacketState{store.PacketFailed, store.PacketCancelled, store.PacketClaimed, store.PacketInProgress}, s)
}

// drop is a card let go over a column: the same call as the button, or
// nothing when the column does not take it.
func (w *workWindow) drop(p store.Packet, col int) {
	if col == workColumnOf(p) || col < 0 {
		return
	}
	if !workDropAllowed(p, col) {
		w.note(fmt.Sprintf("A %s packet cannot go to %s.", workStateText(p.State), workColumnTitles[col]))
		return
	}
	w.cursor = p.ID
	ref := mcpserver.PacketRef{PacketID: p.ID, Reason: "moved on the board"}
	if col == workColQueued {
		workAct(w, mcpserver.MethodWorkRequeue, ref, "Packet back in the queue.")
	} else {
		workAct(w, mcpserver.MethodWorkCancel, ref, "Packet cancelled.")
	}
}
