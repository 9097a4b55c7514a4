package app

// The Changes view's comments at their lines: the draft being written
// (editable and removable where it stands) and the last review's, followed
// to where their lines stand now and marked resolved once the agent's next
// change touched them.

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// inlineComment is a comment shown under its line.
type inlineComment struct {
	c     store.ReviewComment // as written
	at    store.ReviewComment // where it stands in the change shown
	draft int                 // its index in the draft; -1 for one sent
	state sentState
}

// sentState is where a sent comment stands.
type sentState uint8

const (
	sentWaiting  sentState = iota // the agent has not come back with a change
	sentOpen                      // it came back without touching the line
	sentResolved                  // its next change touched the line
)

// Labels of the comments at their lines.
const (
	labelCommentDraft    = "Your comment (not sent yet)"
	labelCommentSent     = "Sent with your review"
	labelCommentOpen     = "From your last review: its line is unchanged since"
	labelCommentResolved = "Resolved: the agent's next change touched this line or the lines around it"
	labelCommentEdit     = "Edit"
	labelCommentRemove   = "Remove"
	labelCommentSave     = "Save comment"
)

// readSent reads the last review's comments and, when the packet came
// back with new commits since, the change as reviewed and what followed
// it: where each comment's line stands now, and whether that change
// touched it. It asks git twice, only for a packet that came back.
func (v *changesView) readSent() {
	v.sent = nil
	p := v.packet
	rv := p.Review
	if v.src.packetID == "" || rv == nil || len(rv.Comments) == 0 {
		return
	}
	back := rv.To != "" && p.Changes != nil && rv.To != p.Changes.To
	var reviewed, since []unidiff.File
	if back {
		var err error
		if reviewed, err = v.readRange(mcpserver.DiffReviewed); err == nil {
			since, err = v.readRange(mcpserver.DiffSinceReview)
		}
		if err != nil {
			v.g.log.Warn("changes: the change since the review could not be read", "err", err)
			back = false
		}
	}
	for _, c := range rv.Comments {
		s := inlineComment{c: c, at: c, draft: -1}
		if back {
			s.state = sentOpen
			if unidiff.Touched(reviewed, since, c.Path, c.Line, c.Side == store.SideOld) {
				s.state = sentResolved
			}
			if c.Side != store.SideOld {
				if path, n := unidiff.Follow(since, c.Path, c.Line); path != "" {
					s.at.Path, s.at.Line = path, n
				}
			}
		}
		v.sent = append(v.sent, s)
	}
}

func (v *changesView) readRange(r string) ([]unidiff.File, error) {
	d, err := invoke(v.g, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: v.src.packetID, Range: r})
	if err != nil {
		return nil, err
	}
	return unidiff.Parse(d.Diff)
}

// inlineComments are the comments to show: the last review's, then the
// draft's.
func (v *changesView) inlineComments() []inlineComment {
	out := slices.Clone(v.sent)
	for i, c := range v.review.comments {
		out = append(out, inlineComment{c: c, at: c, draft: i})
	}
	return out
}

// placeComments puts a row for each inline comment after the row of its
// line; a comment whose line is not shown (outside the hunks, a collapsed
// file, the file as a whole) goes under its file's header, and one on a
// file the change does not show at the end.
func (v *changesView) placeComments(rows []diffRow, fileRow []int) ([]diffRow, []int) {
	v.inline = v.inlineComments()
	if len(v.inline) == 0 {
		return rows, fileRow
	}
	type lineKey struct {
		file int32
		old  bool
		n    int32
	}
	lines := map[lineKey]int{}
	for i, r := range rows {
		if r.kind != rowLine {
			continue
		}
		l := &v.files[r.file].Hunks[r.hunk].Lines[r.line]
		if l.NewLine > 0 && l.Kind != unidiff.Delete {
			lines[lineKey{r.file, false, l.NewLine}] = i
		}
		if l.OldLine > 0 && l.Kind != unidiff.Add {
			lines[lineKey{r.file, true, l.OldLine}] = i
		}
	}
	type placed struct{ after, idx int }
	at := make([]placed, len(v.inline))
	for k, c := range v.inline {
		old := c.at.Side == store.SideOld
		file := -1
		for i := range v.files {
			p := v.files[i].NewPath
			if old {
				p = v.files[i].OldPath
			}
			if p == c.at.Path {
				file = i
				break
			}
		}
		after := len(rows) - 1
		if file >= 0 {
			after = fileRow[file]
			if after+1 < len(rows) && rows[after+1].kind == rowNote {
				after++
			}
			if i, ok := lines[lineKey{int32(file), old, int32(c.at.Line)}]; ok {
				after = i
			}
		}
		at[k] = placed{after, k}
	}
	slices.SortStableFunc(at, func(a, b placed) int { return cmp.Compare(a.after, b.after) })
	out := make([]diffRow, 0, len(rows)+len(at))
	newFileRow := make([]int, len(fileRow))
	next := 0
	for i, r := range rows {
		if r.kind == rowFile {
			newFileRow[r.file] = len(out)
		}
		out = append(out, r)
		for ; next < len(at) && at[next].after == i; next++ {
			out = append(out, diffRow{kind: rowComment, file: r.file, line: int32(at[next].idx)})
		}
	}
	for ; next < len(at); next++ { // no rows at all
		out = append(out, diffRow{kind: rowComment, file: -1, line: int32(at[next].idx)})
	}
	return out, newFileRow
}

// commentCard draws one inline comment in the diff pane: a tinted card,
// indented past the line numbers, with Edit and Remove on a draft.
type commentCard struct {
	widget.BaseWidget
	view   *changesView
	idx    int // into view.inline, -1 for none
	bg     *canvas.Rectangle
	head   *widget.Label
	text   *widget.Label
	edit   *widget.Button
	remove *widget.Button
	box    *fyne.Container
}

func newCommentCard(v *changesView) *commentCard {
	c := &commentCard{view: v, idx: -1, bg: canvas.NewRectangle(color.Transparent)}
	c.bg.CornerRadius = theme.InputRadiusSize()
	c.head = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.head.Truncation = fyne.TextTruncateEllipsis
	c.text = widget.NewLabel("")
	c.text.Wrapping = fyne.TextWrapWord
	c.edit = widget.NewButtonWithIcon(labelCommentEdit, theme.DocumentCreateIcon(), func() {
		if c.idx >= 0 && c.idx < len(v.inline) {
			v.review.editComment(v.inline[c.idx].draft)
		}
	})
	c.remove = widget.NewButtonWithIcon(labelCommentRemove, theme.DeleteIcon(), func() {
		if c.idx >= 0 && c.idx < len(v.inline) {
			v.review.removeComment(v.inline[c.idx].draft)
		}
	})
	c.edit.Importance, c.remove.Importance = widget.LowImportance, widget.LowImportance
	buttons := container.NewHBox(c.edit, c.remove)
	// The text tucks under the header: the labels' own padding is gap enough.
	body := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.InnerPadding()), container.NewBorder(nil, nil, nil, buttons, c.head), c.text)
	card := container.NewStack(c.bg, body)
	indent := canvas.NewRectangle(color.Transparent)
	indent.SetMinSize(fyne.NewSize(newLineWidget(v).gutter()-theme.Padding(), 0))
	c.box = container.NewBorder(nil, nil, indent, nil, card)
	c.ExtendBaseWidget(c)
	return c
}

func (c *commentCard) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(c.box)
}

// Colours of the comment cards.
var (
	tintDraft    = color.NRGBA{R: 0xf0, G: 0xb4, B: 0x29, A: 0x30}
	tintSent     = color.NRGBA{R: 0x38, G: 0x8b, B: 0xfd, A: 0x26}
	tintResolved = color.NRGBA{R: 0x2e, G: 0xa0, B: 0x43, A: 0x26}
)

// set shows inline comment idx.
func (c *commentCard) set(idx int) {
	c.idx = idx
	ic := c.view.inline[idx]
	head := ""
	switch {
	case ic.draft >= 0:
		head, c.bg.FillColor = labelCommentDraft, tintDraft
	case ic.state == sentResolved:
		head, c.bg.FillColor = labelCommentResolved, tintResolved
	case ic.state == sentOpen:
		head, c.bg.FillColor = labelCommentOpen, tintSent
	default:
		head, c.bg.FillColor = labelCommentSent, tintSent
	}
	head += " · " + commentWhere(ic.c)
	c.head.SetText(head)
	c.text.SetText(ic.c.Text)
	show(c.edit, ic.draft >= 0)
	show(c.remove, ic.draft >= 0)
	c.bg.Refresh()
}

// commentWhere names a comment's line as the reviewer saw it.
func commentWhere(c store.ReviewComment) string {
	if c.Line == 0 {
		return c.Path
	}
	return fmt.Sprintf("%s line %d (%s)", c.Path, c.Line, c.Side)
}

// commentHeight is how tall inline comment ic's card is in a pane width
// wide: its header and its text wrapped at the card's width.
func (v *changesView) commentHeight(ic inlineComment, width float32) float32 {
	size := theme.TextSize()
	lineH := fyne.MeasureText("M", size, fyne.TextStyle{}).Height
	avail := width - newLineWidget(v).gutter() - 4*theme.InnerPadding()
	n := 0
	for _, para := range strings.Split(ic.c.Text, "\n") {
		w := fyne.MeasureText(para, size, fyne.TextStyle{}).Width
		k := 1
		if avail > 0 && w > avail {
			k = int(w/(avail*0.9)) + 1 // words do not fill a line to the end
		}
		n += k
	}
	head := max(lineH+2*theme.InnerPadding(), widget.NewButton("x", nil).MinSize().Height)
	return head + float32(n)*lineH
}

// diffItem is the list's item: a line row, or a comment card, made the
// first time the item shows one (most lists never do, and a card costs
// more to make and lay out than a line).
func newDiffItem(v *changesView) fyne.CanvasObject {
	return container.New(itemLayout{}, newLineWidget(v))
}

func (v *changesView) updateDiffItem(i int, o fyne.CanvasObject) {
	c := o.(*fyne.Container)
	lw := c.Objects[0].(*lineWidget)
	var card *commentCard
	if len(c.Objects) > 1 {
		card = c.Objects[1].(*commentCard)
	}
	if v.rows[i].kind == rowComment {
		if card == nil {
			card = newCommentCard(v)
			c.Add(card)
		}
		lw.row = -1
		lw.Hide()
		card.Show()
		card.set(int(v.rows[i].line))
		c.Refresh()
		return
	}
	if card != nil && card.Visible() {
		card.idx = -1
		card.Hide()
		lw.Show()
		c.Refresh()
	}
	lw.set(i)
}

// itemLayout gives the item's size to the one object it shows, and takes
// its minimum size from the line: the list's rows are a line high unless
// told otherwise.
type itemLayout struct{}

func (itemLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		if o.Visible() {
			o.Resize(size)
			o.Move(fyne.NewPos(0, 0))
		}
	}
}

func (itemLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return objs[0].MinSize()
}
