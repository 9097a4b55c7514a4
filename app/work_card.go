package app

// A card on the Work board: the packet's title, repository, priority,
// attempt, the session on it and its age; dragged to another column to
// requeue or cancel it.

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// workCard is a list item of a column. It is Draggable: the list's own
// tap still selects it (a card is not Tappable).
type workCard struct {
	widget.BaseWidget
	w      *workWindow
	packet store.Packet

	bg      *canvas.Rectangle
	title   *widget.Label
	info    *widget.Label
	session *widget.Label

	// pointer is where the drag is, on the window's canvas; dragging
	// is true between the first Dragged and DragEnd.
	pointer  fyne.Position
	dragging bool
}

func newWorkCard(w *workWindow) *workCard {
	c := &workCard{w: w, bg: canvas.NewRectangle(color.Transparent)}
	c.title = widget.NewLabel("packet title")
	c.title.Truncation = fyne.TextTruncateEllipsis
	// The other lines are smaller, as in the other windows' lists, not
	// dimmer: low importance is hard to read on a selected card.
	c.info = widget.NewLabel("repository · P0 · attempt 0/3")
	c.session = widget.NewLabel("ses_0000 · 1m")
	for _, l := range []*widget.Label{c.info, c.session} {
		l.SizeName = theme.SizeNameCaptionText
		l.Truncation = fyne.TextTruncateEllipsis
	}
	c.ExtendBaseWidget(c)
	c.Refresh()
	return c
}

func (c *workCard) CreateRenderer() fyne.WidgetRenderer {
	lines := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), c.title, c.info, c.session)
	return widget.NewSimpleRenderer(container.NewStack(c.bg, lines))
}

// Refresh follows the theme's colours too. The card is an outline: the
// list's selection colour shows through it.
func (c *workCard) Refresh() {
	c.bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	c.bg.StrokeWidth = 1
	c.bg.CornerRadius = theme.InputRadiusSize()
	c.BaseWidget.Refresh()
}

// show puts a packet on the card. A reload shows every visible card
// again: a text that stays the same is not set again (setting it shapes
// it anew, most of a reload's cost).
func (c *workCard) show(p store.Packet) {
	c.packet = p
	workSetText(c.title, p.Title)
	info, imp := c.w.cardConflict(p, c.w.cardInfo(p))
	if c.info.Importance != imp {
		c.info.Importance = imp
		c.info.Refresh()
	}
	workSetText(c.info, info)
	workSetText(c.session, c.w.cardSession(p))
}

func workSetText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// Dragged moves the card's ghost with the pointer; the card stays in
// its column until the registry moves it (a refused drop: it snaps back).
func (c *workCard) Dragged(ev *fyne.DragEvent) {
	if !c.dragging {
		c.w.ghost.lift(c)
	}
	c.dragging = true
	if !ev.AbsolutePosition.IsZero() {
		c.pointer = ev.AbsolutePosition
	} else {
		// A driver that gives no absolute position (the test driver's
		// Drag: where the drag began, and how far it went).
		c.pointer = c.w.g.app.Driver().AbsolutePositionForObject(c).Add(ev.Position).Add(ev.Dragged)
	}
	c.w.ghost.moveTo(c.pointer.Subtract(c.w.g.app.Driver().AbsolutePositionForObject(c.w.ghost.layer)))
}

// DragEnd drops the card on the column under the pointer.
func (c *workCard) DragEnd() {
	if !c.dragging {
		return
	}
	c.dragging = false
	c.w.ghost.put()
	c.w.drop(c.packet, c.w.columnAt(c.pointer))
}

// cardInfo is a card's second line: repository, priority, attempt.
func (w *workWindow) cardInfo(p store.Packet) string {
	return fmt.Sprintf("%s · P%d · attempt %d/%d", w.repoName(p.RepositoryID), p.Priority, p.Attempt, p.MaxAttempts)
}

// cardSession is a card's third line: the session on the packet (under
// its lease, or the one whose changes it holds) and the packet's age.
func (w *workWindow) cardSession(p store.Packet) string {
	parts := []string{}
	switch {
	case sentBackWaiting(p):
		parts = append(parts, "changes requested, waiting for "+p.HeldFor())
	case p.Lease != nil:
		parts = append(parts, p.Lease.SessionID)
	case p.Changes != nil && p.Changes.SessionID != "":
		parts = append(parts, p.Changes.SessionID)
	}
	if p.State == store.PacketClaimed {
		parts = append(parts, "claimed")
	}
	parts = append(parts, workAge(w.now().Sub(p.CreatedAt)))
	return strings.Join(parts, " · ")
}

// sentBackWaiting reports whether p came back from review with changes
// requested and waits for the agent that made them to take it again.
func sentBackWaiting(p store.Packet) bool {
	return p.HeldFor() != "" && p.Review != nil && p.Review.Verdict == store.VerdictRequestChanges && p.ReservedFor == ""
}

// rowInfo is a card's lines after the title, as one line.
func (w *workWindow) rowInfo(p store.Packet) string {
	return w.cardInfo(p) + " · " + w.cardSession(p)
}

// workGhost is what a dragged card looks like on its way: its title in
// an outlined box over the window, under the pointer.
type workGhost struct {
	layer *fyne.Container // the window's top layer, laid out by hand
	box   *fyne.Container
	bg    *canvas.Rectangle
	title *widget.Label
}

func (w *workWindow) newGhost() fyne.CanvasObject {
	g := &workGhost{title: widget.NewLabel(""), bg: canvas.NewRectangle(color.Transparent)}
	g.title.Truncation = fyne.TextTruncateEllipsis
	g.bg.StrokeWidth = 2
	g.box = container.NewStack(g.bg, g.title)
	g.box.Hide()
	g.layer = container.NewWithoutLayout(g.box)
	w.ghost = g
	return g.layer
}

// lift shows the ghost of card c, as wide as the card, in the theme's
// colours of the moment.
func (g *workGhost) lift(c *workCard) {
	g.bg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
	g.bg.StrokeColor = theme.Color(theme.ColorNamePrimary)
	g.bg.CornerRadius = theme.InputRadiusSize()
	g.title.SetText(c.packet.Title)
	g.box.Resize(fyne.NewSize(c.Size().Width, g.title.MinSize().Height))
	g.box.Show()
}

// moveTo puts the ghost's middle under the pointer (pos: on the layer).
func (g *workGhost) moveTo(pos fyne.Position) {
	s := g.box.Size()
	g.box.Move(pos.Subtract(fyne.NewPos(s.Width/2, s.Height/2)))
	g.layer.Refresh()
}

// put hides the ghost at the drop.
func (g *workGhost) put() {
	g.box.Hide()
	g.layer.Refresh()
}
