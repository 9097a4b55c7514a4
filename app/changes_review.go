package app

// The Changes view's review: a comment on a tapped line, the comments
// so far, and the verdicts (Request changes, Approve, Reject), which
// record a verdict and land nothing; Land ▾ (changes_land.go) lands, and
// Send back to agent answers a landing that met a conflict.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

type changesReview struct {
	v   *changesView
	box *fyne.Container // all of it; hidden for a session

	commentBox   *fyne.Container // shown while a comment is written
	commentWhere *widget.Label
	commentEntry *widget.Entry
	commentAdd   *widget.Button
	pending      store.ReviewComment // where the comment being written goes
	editing      int                 // the draft comment being edited, -1 for a new one

	comments []store.ReviewComment // the draft, shown at their lines

	notes        *widget.Entry
	request      *widget.Button
	approve      *widget.Button
	reject       *widget.Button
	land         *widget.Button    // Land ▾: the menu of modes
	menu         *widget.PopUpMenu // that menu, while open
	planText     string            // what it said
	landed       *widget.Label
	conflict     *fyne.Container // the conflict and Send back
	conflictText *widget.Label
	sendBack     *widget.Button
	sendNotes    string
}

func newChangesReview(v *changesView) *changesReview {
	r := &changesReview{v: v, editing: -1}
	r.commentWhere = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.commentEntry = widget.NewMultiLineEntry()
	r.commentEntry.SetPlaceHolder("Your comment on this line (the agent reads it)")
	r.commentEntry.SetMinRowsVisible(2)
	r.commentEntry.Wrapping = fyne.TextWrapWord
	r.commentAdd = widget.NewButtonWithIcon(labelChangesComment, theme.ContentAddIcon(), r.addComment)
	r.commentAdd.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", r.closeComment)
	r.commentBox = container.NewBorder(r.commentWhere, nil, nil, container.NewVBox(r.commentAdd, cancel), r.commentEntry)
	r.commentBox.Hide()

	r.notes = widget.NewEntry()
	r.notes.SetPlaceHolder("Notes for the agent")
	r.request = widget.NewButtonWithIcon(labelWorkRequestChange, theme.DocumentCreateIcon(), r.requestChanges)
	r.request.Importance = widget.WarningImportance
	r.approve = widget.NewButtonWithIcon(labelWorkApprove, theme.ConfirmIcon(), r.approvePacket)
	r.approve.Importance = widget.SuccessImportance
	r.reject = widget.NewButtonWithIcon(labelWorkReject, theme.DeleteIcon(), r.rejectPacket)
	r.reject.Importance = widget.DangerImportance
	r.land = newLandButton(r)
	r.landed = widget.NewLabel("")
	r.landed.Hide()

	r.conflictText = widget.NewLabel("")
	r.conflictText.Wrapping = fyne.TextWrapWord
	r.conflictText.Importance = widget.DangerImportance
	r.sendBack = widget.NewButtonWithIcon(labelChangesSendBack, theme.MailReplyIcon(), r.sendBackToAgent)
	r.sendBack.Importance = widget.WarningImportance
	r.conflict = container.NewBorder(nil, nil, nil, container.NewCenter(r.sendBack), r.conflictText)
	r.conflict.Hide()

	bar := container.NewBorder(nil, nil, nil, container.NewHBox(r.approve, r.request, r.reject, r.land, r.landed), r.notes)
	r.box = container.NewVBox(widget.NewSeparator(), r.commentBox, r.conflict, bar)
	r.box.Hide()
	return r
}

// update shows the review for the packet as last read: none for a
// session, the verdicts for a packet in review, Land ▾ for a done packet
// not landed yet (and Approve while no approval is recorded on it).
func (r *changesReview) update() {
	p := r.v.packet
	if r.v.src.packetID == "" || p.Changes == nil {
		r.box.Hide()
		return
	}
	r.box.Show()
	inReview := p.State == store.PacketInReview
	show(r.request, inReview)
	show(r.reject, inReview)
	show(r.notes, inReview)
	unlanded := p.State == store.PacketDone && p.Landed == nil
	approved := p.Review != nil && p.Review.Verdict == store.VerdictApprove
	show(r.approve, inReview || unlanded && !approved)
	show(r.land, unlanded)
	if p.Landed != nil {
		r.landed.SetText(fmt.Sprintf("Landed as %s (%s)", shortCommit(p.Landed.Commit), p.Landed.Mode))
	}
	show(r.landed, p.Landed != nil)
}

func show(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}

func shortCommit(c string) string {
	if len(c) > 10 {
		return c[:10]
	}
	return c
}

// lineTapped opens the comment entry on row i, when it is a line of a
// packet in review.
func (v *changesView) lineTapped(i int) {
	r := v.review
	if v.packet.State != store.PacketInReview || i >= len(v.rows) || v.rows[i].kind != rowLine {
		return
	}
	row := v.rows[i]
	f := &v.files[row.file]
	ln := f.Hunks[row.hunk].Lines[row.line]
	c := store.ReviewComment{Path: f.Path(), Line: int(ln.NewLine), Side: store.SideNew}
	switch ln.Kind {
	case unidiff.Delete:
		c.Path, c.Line, c.Side = f.OldPath, int(ln.OldLine), store.SideOld
	case unidiff.NoNewline:
		return
	}
	r.openComment(c, -1, i, "")
}

// openComment opens the entry on comment c (draft comment editing, or
// -1 for a new one) with text, marking row.
func (r *changesReview) openComment(c store.ReviewComment, editing, row int, text string) {
	v := r.v
	r.pending, r.editing = c, editing
	prev := v.marked
	v.marked = row
	if prev >= 0 && prev < len(v.rows) {
		v.lines.RefreshItem(prev)
	}
	if row >= 0 {
		v.lines.RefreshItem(row)
	}
	r.commentWhere.SetText("Comment on " + commentWhere(c))
	r.commentAdd.SetText(labelChangesComment)
	r.commentAdd.SetIcon(theme.ContentAddIcon())
	if editing >= 0 {
		r.commentWhere.SetText("Edit your comment on " + commentWhere(c))
		r.commentAdd.SetText(labelCommentSave)
		r.commentAdd.SetIcon(theme.ConfirmIcon())
	}
	r.commentEntry.SetText(text)
	r.commentBox.Show()
	v.content.Refresh()
	v.win.Canvas().Focus(r.commentEntry)
}

// editComment opens draft comment i in the entry.
func (r *changesReview) editComment(i int) {
	if i < 0 || i >= len(r.comments) {
		return
	}
	c := r.comments[i]
	r.openComment(c, i, r.v.commentLineRow(c), c.Text)
}

// removeComment drops draft comment i.
func (r *changesReview) removeComment(i int) {
	if i < 0 || i >= len(r.comments) {
		return
	}
	r.comments = slices.Delete(r.comments, i, i+1)
	if r.editing >= 0 {
		r.closeComment() // its index moved
	}
	r.v.rebuild()
}

func (r *changesReview) addComment() {
	text := strings.TrimSpace(r.commentEntry.Text)
	switch {
	case text == "":
		r.v.fail("Not added", errors.New("write the comment first"))
		return
	case len(text) > maxCommentBytes:
		r.v.fail("Not added", fmt.Errorf("a comment holds at most %d bytes", maxCommentBytes))
		return
	}
	c := r.pending
	c.Text = text
	if r.editing >= 0 && r.editing < len(r.comments) {
		r.comments[r.editing] = c
	} else {
		r.comments = append(r.comments, c)
	}
	r.closeComment()
	r.v.rebuild()
}

func (r *changesReview) closeComment() {
	r.commentBox.Hide()
	r.v.content.Refresh()
	r.editing = -1
	if m := r.v.marked; m >= 0 {
		r.v.marked = -1
		if m < len(r.v.rows) {
			r.v.lines.RefreshItem(m)
		}
	}
}

// verdict sends verdict v with notes and the comments.
func (r *changesReview) verdict(verdict store.Verdict, notes string, comments []store.ReviewComment, done string) error {
	in := mcpserver.VerdictArgs{PacketID: r.v.src.packetID, Verdict: verdict, Notes: notes, Comments: comments}
	res, err := invoke(r.v.g, mcpserver.MethodReviewVerdict, in)
	if err != nil {
		r.v.fail("Not done", err)
		return err
	}
	r.v.packet = res.Packet
	r.update()
	r.sent()
	r.v.note(done)
	return nil
}

// sent shows the last review's comments at their lines, the draft's gone
// with the verdict.
func (r *changesReview) sent() {
	r.comments = nil
	r.closeComment()
	r.v.readSent()
	r.v.rebuild()
}

func (r *changesReview) requestChanges() {
	notes := strings.TrimSpace(r.notes.Text)
	if notes == "" && len(r.comments) == 0 {
		r.v.fail("Not sent", errors.New("write a note or comment on a line first"))
		return
	}
	if notes == "" {
		notes = "See the comments on the lines."
	}
	if r.verdict(store.VerdictRequestChanges, notes, r.comments, "Changes requested: the packet is back in the queue with your comments.") == nil {
		r.notes.SetText("")
	}
}

func (r *changesReview) rejectPacket() {
	_ = r.verdict(store.VerdictReject, strings.TrimSpace(r.notes.Text), nil, "Packet rejected: its changes will not land.")
}

// approvePacket records the verdict approve, and lands nothing: Land ▾
// does, once the person has seen what it would bring.
func (r *changesReview) approvePacket() {
	_ = r.verdict(store.VerdictApprove, strings.TrimSpace(r.notes.Text), nil, "Approved. Land ▾ brings it onto "+r.v.base+".")
}

// showLanding shows a landing's outcome.
func (r *changesReview) showLanding(res mcpserver.LandResult, err error) {
	if err != nil {
		var d *store.Denial
		if errors.As(err, &d) && d.Code == store.CodeMergeConflict {
			r.v.status.SetText("")
			r.showConflict(d)
			return
		}
		if errors.As(err, &d) && d.Code == store.CodeDependsOnPacket && len(d.Packets) > 0 {
			r.v.status.SetText("")
			r.showDepends(d)
			return
		}
		r.v.fail("Not landed", err)
		return
	}
	r.v.packet = res.Packet
	r.conflict.Hide()
	r.update()
	if r.showPullRequest(res) {
		return
	}
	r.v.note(fmt.Sprintf("Landed on %s as %s (%d files).", r.v.base, shortCommit(res.Commit), res.Files))
}

// showConflict shows a merge_conflict's files and offers to send the
// packet back to be rebased.
func (r *changesReview) showConflict(d *store.Denial) {
	files := conflictFiles(d)
	r.sendNotes = fmt.Sprintf("rebase onto %s and resolve: %s", r.v.base, files)
	r.conflictText.SetText(fmt.Sprintf("Not landed: it conflicts with %s in %s. Nothing was moved.", r.v.base, files))
	r.conflict.Show()
	r.v.content.Refresh()
}

// conflictFiles are the files a merge_conflict denial names: its Paths,
// with how many more its reason counted; the whole reason when it has
// none.
func conflictFiles(d *store.Denial) string {
	if len(d.Paths) == 0 {
		return d.Reason
	}
	files := strings.Join(d.Paths, ", ")
	if _, more, ok := strings.Cut(d.Reason, strings.Join(d.Paths, ", ")+" and "); ok {
		if n, _, ok := strings.Cut(more, " more"); ok {
			files += " and " + n + " more"
		}
	}
	return files
}

func (r *changesReview) sendBackToAgent() {
	if r.verdict(store.VerdictRequestChanges, r.sendNotes, nil, "Sent back to the agent to rebase onto "+r.v.base+".") == nil {
		r.conflict.Hide()
	}
}
