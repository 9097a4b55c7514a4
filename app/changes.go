package app

// The Changes view: what a packet's commits or a live session's worktree
// changed, file by file, as a unified diff with syntax colours; line
// comments, the verdicts, and Land ▾. It is a tab of the main window's
// centre (mainwin_changes.go), one view per packet or session, kept while
// the window is open so that coming back to it finds the scroll and the
// comments not yet sent as they were left.

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Changes view labels, also what the tests tap.
const (
	labelChanges          = "Changes"
	labelChangesOpen      = "Open in editor"
	labelChangesCopy      = "Copy path"
	labelChangesComment   = "Add comment"
	labelChangesSendBack  = "Send back to agent"
	labelChangesNoRange   = "no commit range: this agent worked outside a worktree; nothing to land"
	labelChangesNoChanges = "No changes."
	labelChangesWrap      = "Wrap long lines"
	labelChangesWorktree  = "its worktree, committed or not"

	// changesRefreshEvery is how often the shown view of a live session
	// asks for the worktree's diff again; it redraws only when it
	// changed.
	changesRefreshEvery = 2 * time.Second
	// maxCommentBytes bounds one line comment.
	maxCommentBytes = 4 << 10
)

// changesSource is what a Changes view shows: a packet's commits, or a
// live session's worktree.
type changesSource struct {
	packetID  string
	sessionID string
}

// changesView is one Changes view.
type changesView struct {
	g *gui
	// win is the window the view is in (the main window), for its
	// dialogs, menus and the keyboard.
	win fyne.Window
	// content is the view, for a tab of the main window to hold.
	content *fyne.Container
	src     changesSource
	// visible is whether the view is on screen: a live session's view
	// reads its worktree's diff again only then. Any goroutine.
	visible atomic.Bool

	// All fields below are on the Fyne goroutine only, but for mu's.
	packet   store.Packet // the packet shown, as last read
	worktree string       // the worktree's folder, "" when unknown
	base     string       // the branch the change lands on
	// landDefault is the repository's landing mode, Land ▾'s first.
	landDefault store.Landing
	shown       mcpserver.DiffResult // the diff last shown, to tell a new one from it
	files       []unidiff.File
	untracked   map[int]bool // files that are untracked new files
	generated   map[string]bool
	folds       []foldKind      // why each file is folded, if it is
	expanded    map[string]bool // folded files the person opened, by path
	rows        []diffRow
	fileRow     []int
	hl          *highlighter
	marked      int             // the row being commented on, -1 for none
	sent        []inlineComment // the last review's comments
	inline      []inlineComment // the comments shown, rowComment's index
	wrap        bool            // long lines wrap rather than being cut
	width       float32         // the diff pane's width, last laid out
	heights     map[int]float32 // rows whose height is not a line's

	title    *widget.Label
	summary  *widget.Label
	fileList *widget.List
	lines    *widget.List
	openBtn  *widget.Button
	copyBtn  *widget.Button
	status   *widget.Label
	wrapBox  *widget.Check

	review *changesReview

	// openInEditor opens a folder for the person; a stub in tests.
	openInEditor func(path string) error

	// mu serialises the refresh goroutine's updates with a test's reads
	// where fyne.Do runs on the calling goroutine.
	mu   sync.Mutex
	stop chan struct{}
}

// newChangesView builds src's view for win; its owner shows v.content,
// calls load, and closes v.stop when the window goes.
func newChangesView(g *gui, win fyne.Window, src changesSource) *changesView {
	v := &changesView{g: g, src: src, win: win, marked: -1,
		hl: newHighlighter(), stop: make(chan struct{}), openInEditor: openInEditor,
		expanded: map[string]bool{}, heights: map[int]float32{}}

	v.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.title.Truncation = fyne.TextTruncateEllipsis
	v.summary = widget.NewLabel("")
	v.summary.Truncation = fyne.TextTruncateEllipsis
	v.openBtn = widget.NewButtonWithIcon(labelChangesOpen, theme.FolderOpenIcon(), v.open)
	v.copyBtn = widget.NewButtonWithIcon(labelChangesCopy, theme.ContentCopyIcon(), v.copyPath)
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Hide()

	v.fileList = widget.NewList(func() int { return len(v.files) }, newFileRow, v.updateFileRow)
	v.fileList.OnSelected = func(i widget.ListItemID) {
		if i < len(v.fileRow) {
			if v.collapsed(i) {
				v.toggleFold(i) // picked in the list: the person wants its lines
			}
			v.scrollToRow(v.fileRow[i])
		}
	}
	v.lines = widget.NewList(func() int { return len(v.rows) },
		func() fyne.CanvasObject { return newDiffItem(v) },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(v.rows) {
				v.updateDiffItem(i, o)
			}
		})
	v.lines.HideSeparators = true
	v.wrapBox = widget.NewCheck(labelChangesWrap, v.setWrap)

	v.review = newChangesReview(v)
	tools := container.NewHBox(v.wrapBox, v.openBtn, v.copyBtn)
	head := container.NewBorder(nil, nil, nil, container.NewCenter(tools), container.NewVBox(v.title, v.summary))
	split := container.NewHSplit(v.fileList, container.New(&paneLayout{v: v}, v.lines))
	split.SetOffset(0.28)
	bottom := container.NewVBox(v.review.box, v.status)
	v.content = container.NewBorder(container.NewVBox(head, widget.NewSeparator()), bottom, nil, nil, split)
	return v
}

// fetch reads the change over t (the person opening it, or the refresh
// loop's view); off the Fyne goroutine too.
func (v *changesView) fetch(t mcpserver.Transport) (mcpserver.DiffResult, error) {
	if v.src.packetID != "" {
		return call(v.g, t, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: v.src.packetID})
	}
	return call(v.g, t, mcpserver.MethodSessionDiff, mcpserver.SessionDiffArgs{SessionID: v.src.sessionID})
}

// load reads the packet or session, then its change, and shows both.
// What the status line said was about the view as it was.
func (v *changesView) load() {
	v.status.SetText("")
	v.status.Hide()
	if v.src.packetID != "" {
		d, err := invoke(v.g, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: v.src.packetID})
		if err != nil {
			v.fail("The packet could not be read", err)
			return
		}
		v.packet = d.Packet
		v.title.SetText(d.Packet.Title)
		if ch := d.Packet.Changes; ch != nil {
			v.base = ch.BaseBranch
			v.readLanding(d.Packet.RepositoryID)
			v.readWorktree(ch.SessionID)
		} else {
			v.summary.SetText(labelChangesNoRange)
			v.review.update()
			return
		}
	} else {
		v.title.SetText("Session " + v.src.sessionID)
		v.readWorktree(v.src.sessionID)
	}
	v.review.update()
	d, err := v.fetch(mcpserver.TransportGUI)
	if err != nil {
		v.fail("The changes could not be read", err)
		return
	}
	v.readSent()
	if err := v.show(d); err != nil {
		v.fail("The changes could not be shown", err)
	}
}

// readWorktree finds the folder of session id's worktree, for Open in
// editor and Copy path.
func (v *changesView) readWorktree(id string) {
	d, err := invoke(v.g, mcpserver.MethodSessionGet, mcpserver.SessionGetArgs{SessionID: id})
	if err == nil && v.src.sessionID == id {
		// The agent as the sidebar names it, rather than its id.
		v.title.SetText(agentName(d.Session) + " · " + labelChangesWorktree)
	}
	if err != nil || d.Session.Workspace == nil {
		v.worktree = ""
	} else {
		v.worktree = d.Session.Workspace.Path
		if v.base == "" {
			v.base = d.Session.Workspace.BaseBranch
		}
	}
	workSetEnabled(v.openBtn, v.worktree != "")
	workSetEnabled(v.copyBtn, v.worktree != "")
}

// sameDiff tells whether two readings of a change show the same.
func sameDiff(a, b mcpserver.DiffResult) bool {
	return a.Diff == b.Diff && slices.Equal(a.Untracked, b.Untracked)
}

// show parses d and shows it, keeping the scroll position when the
// change is read again.
func (v *changesView) show(d mcpserver.DiffResult) error {
	files, err := unidiff.Parse(d.Diff)
	if err != nil {
		return err
	}
	v.apply(d, files)
	return nil
}

// apply shows parsed files (and the untracked new ones a worktree's diff
// does not hold).
func (v *changesView) apply(d mcpserver.DiffResult, files []unidiff.File) {
	v.shown = d
	untracked := map[int]bool{}
	for _, p := range d.Untracked {
		untracked[len(files)] = true
		files = append(files, unidiff.File{NewPath: p, Status: unidiff.Added})
	}
	v.generated = map[string]bool{}
	for _, p := range d.Generated {
		v.generated[p] = true
	}
	v.files, v.untracked, v.folds = foldOrder(files, untracked, v.generated)
	v.hl = newHighlighter()
	v.rebuild()
	added, deleted := 0, 0
	for i := range files {
		added += files[i].Added
		deleted += files[i].Deleted
	}
	switch {
	case len(files) == 0:
		v.summary.SetText(labelChangesNoChanges)
	default:
		s := fmt.Sprintf("%d files  +%d −%d", len(files), added, deleted)
		if v.base != "" {
			s += "  ·  onto " + v.base
		}
		if v.worktree != "" {
			s += "  ·  " + v.worktree
		}
		v.summary.SetText(s)
	}
	v.fileList.Refresh()
}

// rebuild lays the rows out again: the files (the folded ones collapsed
// unless opened), the comments at their lines, and the heights of the rows
// taller than a line.
func (v *changesView) rebuild() {
	v.rows, v.fileRow = buildRows(v.files, v.untracked, v.collapsed)
	v.rows, v.fileRow = v.placeComments(v.rows, v.fileRow)
	if v.marked >= len(v.rows) || v.marked >= 0 && v.rows[v.marked].kind != rowLine {
		v.marked = -1
	}
	v.setHeights()
	v.lines.Refresh()
}

// collapsed tells whether file i shows its header alone.
func (v *changesView) collapsed(i int) bool {
	return i < len(v.folds) && v.folds[i] != foldNone && !v.expanded[v.files[i].Path()]
}

// toggleFold opens or closes folded file i.
func (v *changesView) toggleFold(i int) {
	if i >= len(v.folds) || v.folds[i] == foldNone {
		return
	}
	p := v.files[i].Path()
	v.expanded[p] = !v.expanded[p]
	v.rebuild()
}

// refreshLoop reads a live session's diff every every while the view is
// on screen, until v.stop closes, and redraws only when it changed.
func (v *changesView) refreshLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
		}
		if !v.visible.Load() {
			continue // an agent's worktree nobody looks at is not read
		}
		d, err := v.fetch(mcpserver.TransportGUIView)
		if err != nil {
			continue // the session ended, say: the last diff stays
		}
		v.mu.Lock()
		same := sameDiff(d, v.shown)
		v.mu.Unlock()
		if same {
			continue
		}
		files, err := unidiff.Parse(d.Diff)
		if err != nil {
			continue
		}
		fyne.Do(func() {
			v.mu.Lock()
			defer v.mu.Unlock()
			select {
			case <-v.stop:
			default:
				v.apply(d, files)
			}
		})
	}
}

// scrollToRow puts row i at the top of the diff pane.
func (v *changesView) scrollToRow(i int) {
	h := newLineWidget(v).MinSize().Height
	off := float32(i) * (h + theme.Padding())
	for r, th := range v.heights {
		if r < i {
			off += th - h
		}
	}
	v.lines.ScrollToOffset(off)
}

// commentLineRow is the row of comment c's line, or -1.
func (v *changesView) commentLineRow(c store.ReviewComment) int {
	for i, r := range v.rows {
		if r.kind != rowLine {
			continue
		}
		f := &v.files[r.file]
		l := &f.Hunks[r.hunk].Lines[r.line]
		if c.Side == store.SideOld && f.OldPath == c.Path && int(l.OldLine) == c.Line && l.Kind != unidiff.Add ||
			c.Side != store.SideOld && f.NewPath == c.Path && int(l.NewLine) == c.Line && l.Kind != unidiff.Delete {
			return i
		}
	}
	return -1
}

func (v *changesView) open() {
	if v.worktree == "" {
		return
	}
	if err := v.openInEditor(v.worktree); err != nil {
		v.fail("The editor could not be opened", err)
	}
}

func (v *changesView) copyPath() {
	if v.worktree == "" {
		return
	}
	v.g.app.Clipboard().SetContent(v.worktree)
	v.note("Copied " + v.worktree)
}

// openInEditor opens path in $VISUAL when set (its words, then the path;
// never through a shell), else with xdg-open.
func openInEditor(path string) error {
	args := strings.Fields(os.Getenv("VISUAL"))
	if len(args) == 0 {
		args = []string{"xdg-open"}
	}
	cmd := exec.Command(args[0], append(args[1:], path)...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening %s with %s: %w", path, args[0], err)
	}
	go func() { _ = cmd.Wait() }() // reaped; an editor that fails says so itself
	return nil
}

func (v *changesView) fail(what string, err error) {
	v.g.log.Warn("changes: "+what, "err", err)
	v.showStatus(what+": "+err.Error(), widget.DangerImportance)
}

// note shows an outcome in the status line, for a while (expire).
func (v *changesView) note(text string) {
	v.showStatus(text, widget.MediumImportance)
	expire(v.status, text)
}

func (v *changesView) showStatus(text string, imp widget.Importance) {
	v.status.Importance = imp
	v.status.SetText(text)
	v.status.Show()
}

// A row of the file list: status letter, path, +N −M.
func newFileRow() fyne.CanvasObject {
	letter := canvas.NewText("M", theme.Color(theme.ColorNameForeground))
	letter.TextStyle = fyne.TextStyle{Bold: true}
	path := widget.NewLabel("")
	path.Truncation = fyne.TextTruncateEllipsis
	add := canvas.NewText("", theme.Color(theme.ColorNameSuccess))
	del := canvas.NewText("", theme.Color(theme.ColorNameError))
	add.TextStyle.Monospace, del.TextStyle.Monospace = true, true
	counts := container.NewHBox(container.NewCenter(add), container.NewCenter(del))
	return container.NewBorder(nil, nil, container.NewCenter(letter), counts, path)
}

func (v *changesView) updateFileRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(v.files) {
		return
	}
	f := &v.files[i]
	c := o.(*fyne.Container)
	path := c.Objects[0].(*widget.Label)
	letter := c.Objects[1].(*fyne.Container).Objects[0].(*canvas.Text)
	counts := c.Objects[2].(*fyne.Container)
	add := counts.Objects[0].(*fyne.Container).Objects[0].(*canvas.Text)
	del := counts.Objects[1].(*fyne.Container).Objects[0].(*canvas.Text)

	letter.Text = f.Letter()
	switch f.Status {
	case unidiff.Added:
		letter.Color = theme.Color(theme.ColorNameSuccess)
	case unidiff.Deleted:
		letter.Color = theme.Color(theme.ColorNameError)
	case unidiff.Renamed, unidiff.Copied:
		letter.Color = theme.Color(theme.ColorNamePrimary)
	default:
		letter.Color = theme.Color(theme.ColorNameWarning)
	}
	letter.Refresh()
	p := f.Path()
	if f.Status == unidiff.Renamed || f.Status == unidiff.Copied {
		p = f.OldPath + " → " + f.NewPath
	}
	if i < len(v.folds) && v.folds[i] != foldNone {
		p += "  · " + foldName(v.folds[i])
	}
	path.SetText(p)
	add.Text, del.Text = "", ""
	switch {
	case v.untracked[i]:
		add.Text = "new"
	case f.Binary:
		add.Text = "bin"
		add.Color = theme.Color(theme.ColorNamePlaceHolder)
	default:
		add.Text, del.Text = fmt.Sprintf("+%d", f.Added), fmt.Sprintf("−%d", f.Deleted)
		add.Color = theme.Color(theme.ColorNameSuccess)
	}
	add.Refresh()
	del.Refresh()
	counts.Refresh()
}
