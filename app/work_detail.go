package app

// The Work board's detail pane, and a packet's Details tab: the selected
// packet, its artifacts, verdicts and history.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func (w *workWindow) selectPacket(id string) {
	if id == w.selected {
		return
	}
	w.selected = id
	w.cursor = id
	w.highlight()
	w.loadDetail(mcpserver.TransportGUI)
	w.bodyScroll.ScrollToTop()
}

// loadDetail reads the selected packet over t: the person's click
// selecting it, or a refresh's view.
func (w *workWindow) loadDetail(t mcpserver.Transport) {
	d, err := call(w.g, t, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: w.selected})
	if err != nil {
		w.fail("The packet could not be read", err)
		return
	}
	w.detail = d
	w.showDetail()
}

// showDetail fills the right side from w.detail.
func (w *workWindow) showDetail() {
	if w.selected == "" {
		w.detailUI.Hide()
		w.empty.Show()
		return
	}
	w.empty.Hide()
	w.detailUI.Show()
	p, arts := w.detail.Packet, w.detail.Artifacts

	w.title.SetText(p.Title)
	sub := fmt.Sprintf("%s · %s · %s", workStateText(p.State), w.repoName(p.RepositoryID), p.ID)
	switch holder := p.HeldFor(); {
	case sentBackWaiting(p):
		sub += " · changes requested, waiting for the agent (session " + holder + ")"
	case holder != "":
		sub += " · held for session " + holder
	}
	w.subtitle.SetText(sub + landedText(p.Landed))
	w.readPullRequestState(p) // changes_pr.go
	state := ""
	if w.stateAsked == p.ID {
		state = w.prState
	}
	showPullRequestLink(w.prLink, p.Landed, state)
	workSetEnabled(w.cancel, !p.State.Terminal())
	show(w.startOnBtn, p.State == store.PacketQueued && p.HeldFor() == "")
	workSetEnabled(w.requeue, slices.Contains([]store.PacketState{store.PacketFailed, store.PacketCancelled, store.PacketClaimed, store.PacketInProgress}, p.State))
	inReview := p.State == store.PacketInReview
	for _, b := range []*widget.Button{w.approve, w.changes, w.reject} {
		show(b, inReview)
	}
	// A button shown or hidden leaves its row laid out as it was.
	w.actions.Refresh()

	review := "not required"
	if p.ReviewRequired {
		review = "required"
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Priority", widget.NewLabel(strconv.Itoa(p.Priority))),
		widget.NewFormItem("Attempts", widget.NewLabel(fmt.Sprintf("%d of %d", p.Attempt, p.MaxAttempts))),
		widget.NewFormItem("Review", widget.NewLabel(review)),
		widget.NewFormItem("Created", widget.NewLabel(p.CreatedAt.Local().Format(time.DateTime))),
		widget.NewFormItem("Updated", widget.NewLabel(p.UpdatedAt.Local().Format(time.DateTime))),
	}
	items = append(items, w.reviewerItem(p)) // work_reviewer.go
	if p.Usage != nil {
		items = append(items, widget.NewFormItem("Usage", workWrapped(usageText(p.Usage)+" ("+p.Usage.Source+")")))
	}
	if p.Lease != nil {
		left := p.Lease.ExpiresAt.Sub(w.now()).Round(time.Second)
		items = append(items, widget.NewFormItem("Lease", workWrapped(fmt.Sprintf("%s, until %s (%s left)",
			p.Lease.SessionID, p.Lease.ExpiresAt.Local().Format(time.TimeOnly), left))))
	}
	// A new form each time: the box around it lays out again only when
	// its objects change.
	w.facts = widget.NewForm(items...)
	objs := []fyne.CanvasObject{w.facts}
	if row := w.conflictsRow(w.detail.Conflicts); row != nil {
		objs = []fyne.CanvasObject{row, w.facts} // work_conflicts.go
	}
	section := func(name string) {
		objs = append(objs, widget.NewSeparator(), widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}

	section("Instructions")
	if strings.TrimSpace(p.Instructions) == "" {
		objs = append(objs, workDim("None."))
	} else {
		objs = append(objs, workMono(p.Instructions))
	}

	if p.Summary != "" {
		section("Summary")
		objs = append(objs, workWrapped(p.Summary))
	}
	if p.ReviewNotes != "" {
		section("Review notes")
		objs = append(objs, workWrapped(p.ReviewNotes))
	}

	if p.Changes != nil || p.State == store.PacketInReview || p.State == store.PacketDone {
		section("Changes")
		objs = append(objs, w.changesSection(p))
	}

	section(fmt.Sprintf("Expected artifacts (%d of %d published)", workPublishedCount(p, arts), len(p.ExpectedArtifacts)))
	if len(p.ExpectedArtifacts) == 0 {
		objs = append(objs, workDim("None."))
	}
	for _, e := range p.ExpectedArtifacts {
		objs = append(objs, workExpectedRow(e, workPublished(arts, e.Name)))
	}

	section("Write scope")
	if len(p.WriteScope) == 0 {
		objs = append(objs, workDim("None: its changes may touch any file; artifacts are published inline only."))
	} else {
		objs = append(objs, workMono(strings.Join(p.WriteScope, "\n")))
	}

	section(fmt.Sprintf("Artifacts (%d)", len(arts)))
	if len(arts) == 0 {
		objs = append(objs, workDim("None yet."))
	}
	for _, a := range arts {
		objs = append(objs, workArtifactView(a)...)
	}

	if vs := workVerdicts(p.History); len(vs) > 0 {
		section("Verdicts")
		for _, t := range vs {
			objs = append(objs, workWrapped(t.At.Local().Format(time.DateTime)+"  "+t.Reason))
		}
	}

	section("History")
	for _, t := range p.History {
		objs = append(objs, workWrapped(workTransitionText(t)))
	}

	w.body.Objects = objs
	w.bodyScroll.Refresh()
}

func workSetEnabled(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// stateText is a state as a person reads it.
func workStateText(s store.PacketState) string {
	return strings.ReplaceAll(string(s), "_", " ")
}

func workWrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// workDim is a quieter line: smaller, not greyed (low importance is the
// disabled colour, hard to read on the dark theme).
func workDim(s string) *widget.Label {
	l := workWrapped(s)
	l.SizeName = theme.SizeNameCaptionText
	return l
}

func workMono(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	return l
}

func workPublished(arts []store.Artifact, name string) bool {
	return slices.ContainsFunc(arts, func(a store.Artifact) bool { return a.Name == name })
}

func workPublishedCount(p store.Packet, arts []store.Artifact) int {
	n := 0
	for _, e := range p.ExpectedArtifacts {
		if workPublished(arts, e.Name) {
			n++
		}
	}
	return n
}

// expectedRow is an expected artifact with a check mark once published.
func workExpectedRow(e store.ExpectedArtifact, done bool) fyne.CanvasObject {
	icon := widget.NewIcon(theme.RadioButtonIcon())
	if done {
		icon = widget.NewIcon(theme.NewSuccessThemedResource(theme.ConfirmIcon()))
	}
	text := e.Name
	if e.Kind != "" {
		text += "  (" + e.Kind + ")"
	}
	return container.NewBorder(nil, nil, icon, nil, widget.NewLabel(text))
}

// artifactView is an artifact's heading and its content: inline text in
// full when small, otherwise where it is and its digest.
func workArtifactView(a store.Artifact) []fyne.CanvasObject {
	head := a.Name
	if a.Kind != "" {
		head += " · " + a.Kind
	}
	head += " · " + workByteSize(a.Size)
	title := widget.NewLabelWithStyle(head, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	by := workDim(fmt.Sprintf("%s by %s", a.CreatedAt.Local().Format(time.DateTime), a.SessionID))
	out := []fyne.CanvasObject{title, by}
	switch {
	case a.Content != nil && len(*a.Content) <= workPreviewLimit && utf8.ValidString(*a.Content):
		out = append(out, workMono(*a.Content))
	case a.Content != nil:
		out = append(out, workDim("inline content, too large or not text to preview"), workMono("sha256 "+a.SHA256))
	default:
		out = append(out, workMono(a.Path+"\nsha256 "+a.SHA256))
	}
	return out
}

func workByteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// verdicts are the transitions out of review that a verdict made (a cancel
// of a packet in review is not one).
func workVerdicts(h []store.Transition) []store.Transition {
	var out []store.Transition
	for _, t := range h {
		if t.From != store.PacketInReview {
			continue
		}
		for _, v := range []store.Verdict{store.VerdictApprove, store.VerdictRequestChanges, store.VerdictReject} {
			if t.Reason == string(v) || strings.HasPrefix(t.Reason, string(v)+": ") {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func workTransitionText(t store.Transition) string {
	s := t.At.Local().Format(time.DateTime) + "  "
	if t.From == "" {
		s += "created → " + workStateText(t.To)
	} else {
		s += workStateText(t.From) + " → " + workStateText(t.To)
	}
	if t.Reason != "" {
		s += " — " + t.Reason
	}
	if t.SessionID != "" {
		s += " (" + t.SessionID + ")"
	}
	return s
}
