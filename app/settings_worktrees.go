package app

// The Settings window's Worktrees tab: every agent's worktree, what it
// holds that is not on its base branch, the disk it takes, and Discard,
// which first says what leaves the worktree and what is deleted for good.

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/workspace"
)

// Worktrees tab labels, also what the tests tap.
const (
	labelWorktreesTab     = "Worktrees"
	labelRefreshWorktrees = "Refresh"
	labelDiscardWorktree  = "Discard…"
	labelConfirmDiscard   = "Discard"
	titleConfirmDiscard   = "Discard this worktree?"

	// worktreeCallTimeout bounds workspace.list and workspace.discard:
	// git status of every worktree and their disk use, or a commit and a
	// worktree remove, take longer than one transaction (callTimeout).
	worktreeCallTimeout = 2 * time.Minute
	// worktreeReloadEvery spaces the re-reads that changes elsewhere ask
	// for: an agent at work changes state many times a second, and each
	// read runs git in every worktree and walks its folder.
	worktreeReloadEvery = 5 * time.Second
	// maxDiscardPaths is how many uncommitted files the confirmation
	// names before it counts the rest.
	maxDiscardPaths = 8
)

// worktreesPane lists workspace.list's worktrees. The list is read off the
// Fyne goroutine (git and a walk of each folder take a while) and only
// while the tab is shown. Every field is on the Fyne goroutine only.
type worktreesPane struct {
	w       *settingsWindow
	entries []mcpserver.WorkspaceEntry // as last read, removed ones left out
	removed int                        // how many listed worktrees are gone
	rows    *fyne.Container
	note    *widget.Label
	shown   bool      // the tab is selected
	loading bool      // a read is under way
	again   bool      // another read was asked for meanwhile
	started time.Time // when the last read started
	pending bool      // a re-read is waiting for worktreeReloadEvery
	// discarded is called with each discard's outcome, once the list's
	// re-read has begun (tests wait on it).
	discarded func(session string, err error)
}

func (w *settingsWindow) worktreesTab() fyne.CanvasObject {
	p := &worktreesPane{w: w, rows: container.NewVBox()}
	w.worktrees = p
	p.note = widget.NewLabel("Reading the worktrees…")
	p.note.Wrapping = fyne.TextWrapWord
	refresh := widget.NewButtonWithIcon(labelRefreshWorktrees, theme.ViewRefreshIcon(), p.load)
	about := widget.NewLabel("Each supervised agent works in a worktree of its own. One with work in it is kept " +
		"until you land the work or discard it here.")
	about.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(container.NewBorder(nil, nil, nil, refresh, about), p.note)
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.rows))
}

// setShown is told when the tab is selected or left: the list is read on
// the way in, and not while another tab is shown.
func (p *worktreesPane) setShown(shown bool) {
	p.shown = shown
	if shown {
		p.load()
	}
}

// changed re-reads the list when the tab is shown, at most every
// worktreeReloadEvery; a change sooner is read when that time is up.
func (p *worktreesPane) changed() {
	if !p.shown || p.pending {
		return
	}
	wait := time.Until(p.started.Add(worktreeReloadEvery))
	if wait <= 0 {
		p.load()
		return
	}
	p.pending = true
	go func() {
		select {
		case <-p.w.stopRefresh:
		case <-time.After(wait):
			fyne.Do(func() {
				p.pending = false
				p.changed()
			})
		}
	}()
}

// load reads workspace.list off the Fyne goroutine and shows it; a load
// asked for during another runs after it.
func (p *worktreesPane) load() {
	if p.loading {
		p.again = true
		return
	}
	p.loading, p.started = true, time.Now()
	go func() {
		// A view: the pane re-reads on a timer (see view).
		out, err := callWithin(p.w.g, worktreeCallTimeout, mcpserver.TransportGUIView, mcpserver.MethodWorkspaceList, mcpserver.NoArgs{})
		fyne.Do(func() {
			p.loading = false
			if err != nil {
				p.w.g.log.Warn("settings: worktrees", "err", err)
				p.note.SetText("The worktrees could not be read: " + refusalText(err))
			} else {
				p.show(out.Workspaces)
			}
			if p.again && p.shown {
				p.again = false
				p.load()
			}
		})
	}()
}

// show lists entries, the removed ones counted but left out.
func (p *worktreesPane) show(entries []mcpserver.WorkspaceEntry) {
	p.entries, p.removed = p.entries[:0], 0
	for _, e := range entries {
		if e.Gone {
			p.removed++
			continue
		}
		p.entries = append(p.entries, e)
	}
	var rows []fyne.CanvasObject
	for i, e := range p.entries {
		if i > 0 {
			rows = append(rows, widget.NewSeparator())
		}
		rows = append(rows, p.row(e))
	}
	p.rows.Objects = rows
	p.rows.Refresh()
	var disk int64
	for _, e := range p.entries {
		disk += e.DiskBytes
	}
	note := "No agent has a worktree."
	if n := len(p.entries); n > 0 {
		note = fmt.Sprintf("%d worktrees, %s on disk.", n, workspace.FormatBytes(disk))
		if n == 1 {
			note = "1 worktree, " + workspace.FormatBytes(disk) + " on disk."
		}
	}
	switch {
	case p.removed == 1:
		note += " 1 removed one (landed, or discarded) is not shown."
	case p.removed > 1:
		note += fmt.Sprintf(" %d removed ones (landed, or discarded) are not shown.", p.removed)
	}
	p.note.SetText(note)
}

// row is one worktree: where it is, what it holds, its state and Discard.
func (p *worktreesPane) row(e mcpserver.WorkspaceEntry) fyne.CanvasObject {
	text := twoLines()
	setTwoLines(text, p.w.repoName(e.RepositoryID)+"  ·  "+e.Workspace.Branch, worktreeFacts(e))
	state, bg, fg := worktreeState(e)
	// The badges share one width, the widest word's, so that they stand
	// in a column.
	widest := newTextBadge("unreadable", bg, fg).MinSize()
	sizer := canvas.NewRectangle(color.Transparent)
	sizer.SetMinSize(widest)
	badge := container.NewStack(sizer, container.NewCenter(newTextBadge(state, bg, fg)))
	discard := widget.NewButtonWithIcon(labelDiscardWorktree, theme.DeleteIcon(), func() { p.askDiscard(e) })
	if e.SessionState.Live() {
		// workspace.discard refuses a running agent's worktree: stop it
		// first (Sessions window).
		discard.Disable()
	}
	return container.NewBorder(nil, nil, nil, container.NewHBox(container.NewCenter(badge), container.NewCenter(discard)), text)
}

// worktreeState is a worktree's state in a word, the most pressing first,
// with its badge's colours: live (its agent runs), unreadable (git
// failed), unlanded (commits not on the base branch), dirty (uncommitted
// files only), landed (nothing in it that is not on the base).
func worktreeState(e mcpserver.WorkspaceEntry) (string, fyne.ThemeColorName, fyne.ThemeColorName) {
	switch {
	case e.Gone:
		return "removed", theme.ColorNameDisabledButton, theme.ColorNameForeground
	case e.SessionState.Live():
		return "live", theme.ColorNamePrimary, theme.ColorNameForegroundOnPrimary
	case e.State == nil:
		return "unreadable", theme.ColorNameError, theme.ColorNameForegroundOnError
	case e.State.Unlanded > 0:
		return "unlanded", theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	case e.State.Dirty:
		return "dirty", theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	}
	return "landed", theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess
}

// worktreeFacts is a worktree's second line: commits, uncommitted files,
// disk use, session and folder.
func worktreeFacts(e mcpserver.WorkspaceEntry) string {
	var parts []string
	if st := e.State; st != nil {
		parts = append(parts, fmt.Sprintf("%s ahead, %d not on %s", plural(st.Ahead, "commit"), st.Unlanded, e.Workspace.BaseBranch))
		if st.Dirty {
			parts = append(parts, plural(len(st.Changed), "uncommitted file"))
		} else {
			parts = append(parts, "nothing uncommitted")
		}
	} else {
		parts = append(parts, e.Problem)
	}
	if e.DiskBytes > 0 {
		parts = append(parts, workspace.FormatBytes(e.DiskBytes))
	}
	return strings.Join(append(parts, e.SessionID, e.Workspace.Path), "  ·  ")
}

// discardText says what discarding e takes out of the worktree (its
// commits not on the base branch, its uncommitted files, by name) and
// where they stay, and what is deleted for good: the folder, with the
// files git ignores. workspace.discard commits the uncommitted files and
// keeps the branch, so git still reaches every commit afterwards.
func discardText(e mcpserver.WorkspaceEntry) string {
	var b strings.Builder
	folder := e.Workspace.Path
	if e.DiskBytes > 0 {
		folder += " (" + workspace.FormatBytes(e.DiskBytes) + ")"
	}
	fmt.Fprintf(&b, "Discarding deletes the folder %s, the worktree of session %s.\n\n", folder, e.SessionID)
	st := e.State
	switch {
	case st == nil:
		fmt.Fprintf(&b, "Git could not read it (%s), so what it holds is not known. Whatever it has committed stays on branch %s; "+
			"its uncommitted files are committed there first.\n\n", e.Problem, e.Workspace.Branch)
	case st.Unlanded == 0 && !st.Dirty:
		fmt.Fprintf(&b, "Nothing of its work is lost: every commit is on %s and no file is uncommitted.\n\n", e.Workspace.BaseBranch)
	default:
		b.WriteString("It takes out of the worktree:\n")
		if st.Unlanded > 0 {
			fmt.Fprintf(&b, "  •  %s (not on %s)\n", plural(st.Unlanded, "unlanded commit"), e.Workspace.BaseBranch)
		}
		if st.Dirty {
			names := make([]string, 0, maxDiscardPaths)
			for i, c := range st.Changed {
				if i == maxDiscardPaths {
					names = append(names, fmt.Sprintf("and %d more", len(st.Changed)-i))
					break
				}
				names = append(names, c.Path)
			}
			fmt.Fprintf(&b, "  •  %s: %s\n", plural(len(st.Changed), "uncommitted file"), strings.Join(names, ", "))
		}
		fmt.Fprintf(&b, "They stay on branch %s", e.Workspace.Branch)
		if st.Dirty {
			b.WriteString(" (the uncommitted files as one more commit)")
		}
		b.WriteString(", until that branch is deleted; nothing lands.\n\n")
	}
	b.WriteString("Deleted for good: the files git ignores in the folder (build output, dependencies, copied .env files).")
	return b.String()
}

// askDiscard shows what discarding e loses and discards it on the
// person's word.
func (p *worktreesPane) askDiscard(e mcpserver.WorkspaceEntry) {
	msg := widget.NewLabel(discardText(e))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(titleConfirmDiscard, labelConfirmDiscard, "Cancel", msg, func(ok bool) {
		if ok {
			p.discard(e)
		}
	}, p.w.win)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Resize(fyne.NewSize(620, 360))
	d.Show()
}

// discard calls workspace.discard off the Fyne goroutine: a commit and a
// worktree remove take a moment.
func (p *worktreesPane) discard(e mcpserver.WorkspaceEntry) {
	p.w.status.SetText("Discarding the worktree of " + e.SessionID + "…")
	go func() {
		out, err := callWithin(p.w.g, worktreeCallTimeout, mcpserver.TransportGUI,
			mcpserver.MethodWorkspaceDiscard, mcpserver.WorkspaceDiscardArgs{SessionID: e.SessionID})
		fyne.Do(func() {
			if err != nil {
				p.w.fail("discard the worktree of "+e.SessionID, err)
			} else {
				p.w.note("Discarded " + out.Workspace.Path + "; branch " + out.Workspace.Branch + " keeps its commits.")
			}
			p.load()
			if p.discarded != nil {
				p.discarded(e.SessionID, err)
			}
		})
	}()
}
