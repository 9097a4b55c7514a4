package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Work window labels, also what the tests tap.
const (
	titleWork              = "Switchboard — Work"
	labelWorkAllRepos      = "All repositories"
	labelWorkNewPacket     = "New packet"
	labelWorkCreate        = "Create"
	labelWorkCancelPacket  = "Cancel packet"
	labelWorkRequeue       = "Requeue"
	labelWorkApprove       = "Approve"
	labelWorkRequestChange = "Request changes"
	labelWorkReject        = "Reject"
	labelWorkNoPacket      = "Select a packet on the left, or create one."

	// workReloadEvery throttles the re-reads Changed() asks for: an agent
	// publishing busily must not make the window read (and audit) per call.
	workReloadEvery = 500 * time.Millisecond
	// workListLimit is how many packets the window reads (work.list's most).
	workListLimit = 1000
	// workPreviewLimit is the largest inline artifact shown in full.
	workPreviewLimit = 4 << 10
)

// workStates are the groups of the packet list, in workflow order, with
// their headings. Claimed and in progress share one: both are an agent at
// work under a lease.
var workStates = []struct {
	title  string
	states []store.PacketState
}{
	{"Queued", []store.PacketState{store.PacketQueued}},
	{"In progress", []store.PacketState{store.PacketClaimed, store.PacketInProgress}},
	{"In review", []store.PacketState{store.PacketInReview}},
	{"Done", []store.PacketState{store.PacketDone}},
	{"Failed", []store.PacketState{store.PacketFailed}},
	{"Cancelled", []store.PacketState{store.PacketCancelled}},
}

// workRow is one row of the packet list: a group heading or a packet.
type workRow struct {
	heading string // set for a heading
	packet  store.Packet
}

// workWindow is the Work window: packets by state, create, cancel, requeue,
// artifacts and verdicts.
type workWindow struct {
	g   *gui
	win fyne.Window

	// All fields below are on the Fyne goroutine only.
	repoFilter *widget.Select
	repos      []store.Repository          // as listed, for the selects
	repoByID   map[string]store.Repository // for names
	filterID   string                      // repository the list shows; "" for all
	packets    []store.Packet              // as last read
	rows       []workRow                   // what list shows
	list       *widget.List
	selected   string // packet id
	detail     mcpserver.WorkGetResult

	newPacket *widget.Button
	status    *widget.Label // the last error or outcome

	title    *widget.Label
	subtitle *widget.Label
	facts    *widget.Form
	body     *fyne.Container // sections of the selected packet
	cancel   *widget.Button
	requeue  *widget.Button
	approve  *widget.Button
	changes  *widget.Button
	reject   *widget.Button
	detailUI fyne.CanvasObject // title, buttons and body; hidden with no selection
	empty    fyne.CanvasObject

	// bodyScroll scrolls body; refreshed when body changes, so that it
	// takes the new height (a box refreshed alone does not tell it).
	bodyScroll *container.Scroll

	form   *workForm   // the open New packet form, if any
	prompt *workPrompt // the open reason or notes prompt, if any

	// mu serialises the refresh goroutine's updates with other work on
	// the window where fyne.Do runs the update on the calling goroutine
	// (the test driver does); on a real driver it is never contended.
	mu          sync.Mutex
	stopRefresh chan struct{}

	// now is the clock the packets' ages and leases are measured against;
	// time.Now, a fixed time in the golden-image tests.
	now func() time.Time
}

// showWork opens the Work window, or brings it forward.
func (g *gui) showWork() {
	if g.work == nil {
		g.work = newWorkWindow(g)
	}
	g.work.win.Show()
	g.work.win.RequestFocus()
	g.work.reload()
}

func newWorkWindow(g *gui) *workWindow {
	w := &workWindow{g: g, win: g.app.NewWindow(titleWork), stopRefresh: make(chan struct{}), now: time.Now}

	w.repoFilter = widget.NewSelect([]string{labelWorkAllRepos}, nil)
	w.repoFilter.SetSelected(labelWorkAllRepos)
	w.repoFilter.OnChanged = func(s string) {
		w.filterID = w.repoIDOf(s)
		w.reload()
	}
	w.newPacket = widget.NewButtonWithIcon(labelWorkNewPacket, theme.ContentAddIcon(), w.openForm)
	w.newPacket.Importance = widget.HighImportance

	w.list = widget.NewList(func() int { return len(w.rows) }, newWorkRowTemplate, w.updateRow)
	w.list.OnSelected = func(i widget.ListItemID) {
		if i >= len(w.rows) {
			return
		}
		if w.rows[i].heading != "" {
			// Headings are not packets: keep the selection where it was.
			w.list.Unselect(i)
			w.selectRow()
			return
		}
		w.selectPacket(w.rows[i].packet.ID)
	}

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

	actions := container.NewHBox(w.approve, w.changes, w.reject, layout.NewSpacer(), w.requeue, w.cancel)
	head := container.NewVBox(w.title, w.subtitle, actions, widget.NewSeparator())
	w.bodyScroll = container.NewVScroll(w.body)
	w.detailUI = container.NewBorder(head, nil, nil, nil, w.bodyScroll)
	w.empty = container.NewCenter(widget.NewLabel(labelWorkNoPacket))
	w.detailUI.Hide()

	left := container.NewBorder(
		container.NewBorder(nil, nil, nil, w.newPacket, w.repoFilter),
		nil, nil, nil, w.list)
	split := container.NewHSplit(left, container.NewPadded(container.NewStack(w.empty, w.detailUI)))
	split.SetOffset(0.34)
	w.win.SetContent(container.NewBorder(nil, w.status, nil, nil, split))
	w.win.Resize(fyne.NewSize(1200, 760))
	w.win.SetOnClosed(func() {
		close(w.stopRefresh)
		g.work = nil
	})
	w.showDetail()
	// Subscribed here, before showWork's first read: a change committed
	// between that read and the goroutine's start is then not missed.
	go w.refreshLoop(g.core.Registry().Changed())
	return w
}

// refreshLoop re-reads while the window is open, when the registry says
// something changed, at most every workReloadEvery.
func (w *workWindow) refreshLoop(changed <-chan struct{}) {
	var last time.Time
	for {
		select {
		case <-w.stopRefresh:
			return
		case <-changed:
		}
		if d := time.Until(last.Add(workReloadEvery)); d > 0 {
			select {
			case <-w.stopRefresh:
				return
			case <-time.After(d):
			}
		}
		last = time.Now()
		// Re-armed before the read, so that a commit during the read is
		// read again rather than missed.
		changed = w.g.core.Registry().Changed()
		fyne.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			select {
			case <-w.stopRefresh: // closed meanwhile
			default:
				w.reload()
			}
		})
	}
}

// ---- the packet list --------------------------------------------------------

func newWorkRowTemplate() fyne.CanvasObject {
	heading := widget.NewLabelWithStyle("Queued (0)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title := widget.NewLabel("packet title")
	title.Truncation = fyne.TextTruncateEllipsis
	// The second line is smaller, as in the other windows' lists, not
	// dimmer: low importance is hard to read on a selected row.
	info := widget.NewLabel("repository · P0 · attempt 0/3 · 1m")
	info.SizeName = theme.SizeNameCaptionText
	info.Truncation = fyne.TextTruncateEllipsis
	packet := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), title, info)
	return container.NewStack(heading, packet)
}

func (w *workWindow) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(w.rows) {
		return
	}
	r := w.rows[i]
	objs := o.(*fyne.Container).Objects
	heading, packet := objs[0].(*widget.Label), objs[1].(*fyne.Container)
	if r.heading != "" {
		heading.SetText(r.heading)
		heading.Show()
		packet.Hide()
		return
	}
	heading.Hide()
	packet.Show()
	p := r.packet
	packet.Objects[0].(*widget.Label).SetText(p.Title)
	packet.Objects[1].(*widget.Label).SetText(w.rowInfo(p))
}

// rowInfo is a packet's second line in the list.
func (w *workWindow) rowInfo(p store.Packet) string {
	parts := []string{w.repoName(p.RepositoryID), fmt.Sprintf("P%d", p.Priority),
		fmt.Sprintf("attempt %d/%d", p.Attempt, p.MaxAttempts), workAge(w.now().Sub(p.CreatedAt))}
	if p.State == store.PacketClaimed {
		parts = append(parts, "claimed")
	}
	return strings.Join(parts, " · ")
}

// age is a short duration: 12s, 5m, 3h, 2d.
func workAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// groupRows orders packets into headed groups; an empty group is left out.
// The queue is shown in claim order (priority, then age); the other groups
// newest first, as listed.
func workGroupRows(packets []store.Packet) []workRow {
	var rows []workRow
	for _, grp := range workStates {
		var in []store.Packet
		for _, p := range packets {
			if slices.Contains(grp.states, p.State) {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			continue
		}
		if grp.states[0] == store.PacketQueued {
			slices.SortStableFunc(in, func(a, b store.Packet) int {
				if a.Priority != b.Priority {
					return b.Priority - a.Priority
				}
				return int(a.Seq) - int(b.Seq)
			})
		}
		rows = append(rows, workRow{heading: fmt.Sprintf("%s (%d)", grp.title, len(in))})
		for _, p := range in {
			rows = append(rows, workRow{packet: p})
		}
	}
	return rows
}

// reload reads the repositories and the packets and shows them, keeping the
// selection.
func (w *workWindow) reload() {
	var repos mcpserver.RepositoryList
	if err := w.g.call("repository.list", struct{}{}, &repos); err != nil {
		w.fail("Repositories could not be read", err)
		return
	}
	w.setRepos(repos.Repositories)
	var list mcpserver.WorkList
	f := store.PacketFilter{RepositoryID: w.filterID, Limit: workListLimit}
	if err := w.g.call("work.list", f, &list); err != nil {
		w.fail("Packets could not be read", err)
		return
	}
	w.packets = list.Packets
	w.rows = workGroupRows(w.packets)
	w.sizeRows()
	w.list.Refresh()
	w.selectRow()
	if w.selected != "" {
		w.loadDetail()
	}
}

// sizeRows gives headings their own, lower height.
func (w *workWindow) sizeRows() {
	tmpl := newWorkRowTemplate().(*fyne.Container)
	hh := tmpl.Objects[0].MinSize().Height
	ph := tmpl.Objects[1].MinSize().Height
	for i, r := range w.rows {
		if r.heading != "" {
			w.list.SetItemHeight(i, hh)
		} else {
			w.list.SetItemHeight(i, ph)
		}
	}
}

// selectRow highlights the selected packet's row, wherever it moved.
func (w *workWindow) selectRow() {
	for i, r := range w.rows {
		if r.heading == "" && r.packet.ID == w.selected {
			w.list.Select(i)
			return
		}
	}
	w.list.UnselectAll()
}

func (w *workWindow) setRepos(repos []store.Repository) {
	w.repos = repos
	w.repoByID = make(map[string]store.Repository, len(repos))
	opts := []string{labelWorkAllRepos}
	for _, r := range repos {
		w.repoByID[r.ID] = r
		opts = append(opts, w.repoLabel(r))
	}
	if !slices.Equal(opts, w.repoFilter.Options) {
		w.repoFilter.SetOptions(opts)
	}
}

// repoLabel names a repository in a select; the id is added when two share
// a name.
func (w *workWindow) repoLabel(r store.Repository) string {
	name := workRepoDisplayName(r)
	for _, o := range w.repos {
		if o.ID != r.ID && workRepoDisplayName(o) == name {
			return name + " (" + r.ID + ")"
		}
	}
	return name
}

func (w *workWindow) repoIDOf(label string) string {
	for _, r := range w.repos {
		if w.repoLabel(r) == label {
			return r.ID
		}
	}
	return ""
}

func workRepoDisplayName(r store.Repository) string {
	if r.Name != "" {
		return r.Name
	}
	return filepath.Base(r.Path)
}

func (w *workWindow) repoName(id string) string {
	if r, ok := w.repoByID[id]; ok {
		return workRepoDisplayName(r)
	}
	return id
}

// fail shows an error in the status line and logs it.
func (w *workWindow) fail(what string, err error) {
	w.g.log.Warn("work: "+what, "err", err)
	w.showStatus(what+": "+err.Error(), widget.DangerImportance)
}

// note shows an outcome in the status line.
func (w *workWindow) note(text string) {
	w.showStatus(text, widget.MediumImportance)
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

// ---- the selected packet ---------------------------------------------------

func (w *workWindow) selectPacket(id string) {
	if id == w.selected {
		return
	}
	w.selected = id
	w.selectRow()
	w.loadDetail()
	w.bodyScroll.ScrollToTop()
}

func (w *workWindow) loadDetail() {
	var d mcpserver.WorkGetResult
	if err := w.g.call("work.get", mcpserver.WorkGetArgs{PacketID: w.selected}, &d); err != nil {
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
	w.subtitle.SetText(fmt.Sprintf("%s · %s · %s", workStateText(p.State), w.repoName(p.RepositoryID), p.ID))
	workSetEnabled(w.cancel, !p.State.Terminal())
	workSetEnabled(w.requeue, slices.Contains([]store.PacketState{store.PacketFailed, store.PacketCancelled, store.PacketClaimed, store.PacketInProgress}, p.State))
	inReview := p.State == store.PacketInReview
	for _, b := range []*widget.Button{w.approve, w.changes, w.reject} {
		if inReview {
			b.Show()
		} else {
			b.Hide()
		}
	}

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
	if p.Lease != nil {
		left := p.Lease.ExpiresAt.Sub(w.now()).Round(time.Second)
		items = append(items, widget.NewFormItem("Lease", workWrapped(fmt.Sprintf("%s, until %s (%s left)",
			p.Lease.SessionID, p.Lease.ExpiresAt.Local().Format(time.TimeOnly), left))))
	}
	// A new form each time: the box around it lays out again only when
	// its objects change.
	w.facts = widget.NewForm(items...)
	objs := []fyne.CanvasObject{w.facts}
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

	section(fmt.Sprintf("Expected artifacts (%d of %d published)", workPublishedCount(p, arts), len(p.ExpectedArtifacts)))
	if len(p.ExpectedArtifacts) == 0 {
		objs = append(objs, workDim("None."))
	}
	for _, e := range p.ExpectedArtifacts {
		objs = append(objs, workExpectedRow(e, workPublished(arts, e.Name)))
	}

	section("Write scope")
	if len(p.WriteScope) == 0 {
		objs = append(objs, workDim("None: inline artifacts only."))
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

// ---- actions ---------------------------------------------------------------

// act runs a method on the selected packet and shows the outcome.
func (w *workWindow) act(method string, args any, done string) bool {
	var res mcpserver.PacketResult
	if err := w.g.call(method, args, &res); err != nil {
		w.fail("Not done", err)
		return false
	}
	w.note(done)
	w.reload()
	return true
}

func (w *workWindow) askCancel() {
	id := w.selected
	w.ask("Cancel packet", "Reason (optional)", labelWorkCancelPacket, false, func(reason string) error {
		return w.actErr("work.cancel", mcpserver.PacketRef{PacketID: id, Reason: reason}, "Packet cancelled.")
	})
}

func (w *workWindow) askRequeue() {
	id := w.selected
	w.ask("Requeue packet", "Reason (optional)", labelWorkRequeue, false, func(reason string) error {
		return w.actErr("work.requeue", mcpserver.PacketRef{PacketID: id, Reason: reason}, "Packet back in the queue.")
	})
}

func (w *workWindow) askChanges() {
	id := w.selected
	w.ask("Request changes", "What must change (the next agent reads this)", labelWorkRequestChange, true, func(notes string) error {
		return w.actErr("review.verdict", mcpserver.VerdictArgs{PacketID: id, Verdict: store.VerdictRequestChanges, Notes: notes}, "Changes requested: the packet is back in the queue.")
	})
}

func (w *workWindow) askReject() {
	id := w.selected
	w.ask("Reject packet", "Why (optional)", labelWorkReject, false, func(notes string) error {
		return w.actErr("review.verdict", mcpserver.VerdictArgs{PacketID: id, Verdict: store.VerdictReject, Notes: notes}, "Packet rejected.")
	})
}

func (w *workWindow) verdict(v store.Verdict, notes string) {
	w.act("review.verdict", mcpserver.VerdictArgs{PacketID: w.selected, Verdict: v, Notes: notes}, "Packet approved.")
}

// actErr is act for a prompt, which shows the error itself.
func (w *workWindow) actErr(method string, args any, done string) error {
	var res mcpserver.PacketResult
	if err := w.g.call(method, args, &res); err != nil {
		return err
	}
	w.note(done)
	w.reload()
	return nil
}

// workPrompt is a small dialog asking for one text before an action.
type workPrompt struct {
	dlg   *dialog.CustomDialog
	entry *widget.Entry
	ok    *widget.Button
	err   *widget.Label
}

// ask opens a prompt; do runs on confirm, and its error stays in the
// prompt.
func (w *workWindow) ask(title, placeholder, confirm string, required bool, do func(string) error) {
	p := &workPrompt{entry: widget.NewMultiLineEntry(), err: widget.NewLabel("")}
	p.entry.SetPlaceHolder(placeholder)
	p.entry.SetMinRowsVisible(3)
	p.entry.Wrapping = fyne.TextWrapWord
	p.err.Importance = widget.DangerImportance
	p.err.Wrapping = fyne.TextWrapWord
	p.err.Hide()
	dismiss := widget.NewButton("Close", func() { p.dlg.Hide() })
	p.ok = widget.NewButton(confirm, func() {
		text := strings.TrimSpace(p.entry.Text)
		if required && text == "" {
			p.showErr(errors.New("please write something first"))
			return
		}
		if err := do(text); err != nil {
			p.showErr(err)
			return
		}
		p.dlg.Hide()
	})
	p.ok.Importance = widget.HighImportance
	content := container.NewVBox(p.entry, p.err)
	p.dlg = dialog.NewCustomWithoutButtons(title, content, w.win)
	p.dlg.SetButtons([]fyne.CanvasObject{dismiss, p.ok})
	p.dlg.SetOnClosed(func() {
		if w.prompt == p {
			w.prompt = nil
		}
	})
	p.dlg.Resize(fyne.NewSize(460, 0))
	w.prompt = p
	p.dlg.Show()
	w.win.Canvas().Focus(p.entry)
}

func (p *workPrompt) showErr(err error) {
	p.err.SetText(err.Error())
	p.err.Show()
}

// ---- the New packet form -----------------------------------------------------

// workForm is the New packet dialog.
type workForm struct {
	dlg          *dialog.CustomDialog
	repo         *widget.Select
	title        *widget.Entry
	instructions *widget.Entry
	expected     *widget.Entry
	scope        *widget.Entry
	priority     *widget.Entry
	maxAttempts  *widget.Entry
	review       *widget.Check
	create       *widget.Button
	err          *widget.Label
}

func (w *workWindow) openForm() {
	if w.form != nil {
		w.form.dlg.Show()
		return
	}
	f := &workForm{
		title:        widget.NewEntry(),
		instructions: widget.NewMultiLineEntry(),
		expected:     widget.NewMultiLineEntry(),
		scope:        widget.NewMultiLineEntry(),
		priority:     widget.NewEntry(),
		maxAttempts:  widget.NewEntry(),
		review:       widget.NewCheck("A person approves the result", nil),
		err:          widget.NewLabel(""),
	}
	var opts []string
	for _, r := range w.repos {
		opts = append(opts, w.repoLabel(r))
	}
	f.repo = widget.NewSelect(opts, nil)
	f.repo.PlaceHolder = "(choose a repository)"
	if r, ok := w.repoByID[w.filterID]; ok {
		f.repo.SetSelected(w.repoLabel(r))
	} else if len(opts) == 1 {
		f.repo.SetSelectedIndex(0)
	}
	f.title.SetPlaceHolder("What to do, in a line")
	f.instructions.SetPlaceHolder("What the agent must do, and how to tell it is done")
	f.instructions.SetMinRowsVisible(6)
	f.instructions.Wrapping = fyne.TextWrapWord
	f.expected.SetPlaceHolder("name[:kind], one a line or comma-separated\ne.g. summary:markdown, patch:diff")
	f.expected.SetMinRowsVisible(2)
	f.scope.SetPlaceHolder("globs the agent may write, one a line\ne.g. docs/**")
	f.scope.SetMinRowsVisible(2)
	f.priority.SetText("0")
	f.maxAttempts.SetText(strconv.Itoa(store.DefaultMaxAttempts))
	f.err.Importance = widget.DangerImportance
	f.err.Wrapping = fyne.TextWrapWord
	f.err.Hide()

	form := widget.NewForm(
		widget.NewFormItem("Repository", f.repo),
		widget.NewFormItem("Title", f.title),
		widget.NewFormItem("Instructions", f.instructions),
		widget.NewFormItem("Expected artifacts", f.expected),
		widget.NewFormItem("Write scope", f.scope),
		widget.NewFormItem("Priority", f.priority),
		widget.NewFormItem("Max attempts", f.maxAttempts),
		widget.NewFormItem("Review", f.review),
	)
	form.Items[5].HintText = "higher is claimed first"
	form.Items[6].HintText = "claims before the packet fails"
	f.create = widget.NewButtonWithIcon(labelWorkCreate, theme.ContentAddIcon(), func() { w.submitForm(f) })
	f.create.Importance = widget.HighImportance
	dismiss := widget.NewButton("Close", func() { f.dlg.Hide() })
	f.dlg = dialog.NewCustomWithoutButtons(labelWorkNewPacket, container.NewVBox(form, f.err), w.win)
	f.dlg.SetButtons([]fyne.CanvasObject{dismiss, f.create})
	f.dlg.SetOnClosed(func() {
		if w.form == f {
			w.form = nil
		}
	})
	f.dlg.Resize(fyne.NewSize(640, 0))
	w.form = f
	f.dlg.Show()
	w.win.Canvas().Focus(f.title)
}

// args reads the form; a mistake the registry cannot see (a number that is
// no number) is reported here.
func (w *workWindow) formArgs(f *workForm) (mcpserver.WorkCreateArgs, error) {
	a := mcpserver.WorkCreateArgs{
		RepositoryID:   w.repoIDOf(f.repo.Selected),
		Title:          strings.TrimSpace(f.title.Text),
		Instructions:   f.instructions.Text,
		ReviewRequired: f.review.Checked,
	}
	if a.RepositoryID == "" {
		return a, errors.New("choose a repository")
	}
	var err error
	if a.Priority, err = workFormInt("priority", f.priority.Text, 0); err != nil {
		return a, err
	}
	if a.MaxAttempts, err = workFormInt("max attempts", f.maxAttempts.Text, 0); err != nil {
		return a, err
	}
	a.ExpectedArtifacts = workParseExpected(f.expected.Text)
	for _, l := range strings.Split(f.scope.Text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			a.WriteScope = append(a.WriteScope, l)
		}
	}
	return a, nil
}

func workFormInt(name, s string, def int) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s must be a whole number, not %q", name, s)
	}
	return n, nil
}

// parseExpected reads "name[:kind]" items separated by commas or lines.
func workParseExpected(s string) []store.ExpectedArtifact {
	var out []store.ExpectedArtifact
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, kind, _ := strings.Cut(item, ":")
		out = append(out, store.ExpectedArtifact{Name: strings.TrimSpace(name), Kind: strings.TrimSpace(kind)})
	}
	return out
}

func (w *workWindow) submitForm(f *workForm) {
	args, err := w.formArgs(f)
	if err == nil {
		var res mcpserver.PacketResult
		if err = w.g.call("work.create", args, &res); err == nil {
			f.dlg.Hide()
			w.note("Packet " + res.Packet.ID + " queued.")
			w.selected = res.Packet.ID
			w.reload()
			return
		}
	}
	f.err.SetText(refusalText(err))
	f.err.Show()
}

// refusalText words an error for a form: a denial's code stays, so the
// person can tell a refusal (invalid_argument: …) from a failure.
func refusalText(err error) string {
	var d *store.Denial
	if errors.As(err, &d) {
		return fmt.Sprintf("Refused (%s): %s", d.Code, d.Reason)
	}
	return err.Error()
}
