package app

// The Work board's conflict badges: a packet waiting to land whose
// commits conflict with its target branch says so on its card and at the
// top of its detail, whose button shows the conflicting hunks.

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Conflict labels, also what the tests tap.
const (
	labelWorkShowConflicts = "Show conflicts"
	labelWorkSendBack      = "Send back to agent"
	labelWorkRebase        = "Rebase onto %s"
	titleWorkConflicts     = "Conflicts with %s"
	// workBadgeFiles is how many files a badge names before "and N more".
	workBadgeFiles = 3
)

// conflictBadge says where a packet conflicts: "Conflicts with main in
// a.txt, b.txt".
func conflictBadge(c mcpserver.PacketConflicts) string {
	files := c.Files
	more := ""
	if len(files) > workBadgeFiles {
		files, more = files[:workBadgeFiles], fmt.Sprintf(" and %d more", len(files)-workBadgeFiles)
	}
	return fmt.Sprintf("Conflicts with %s in %s%s", c.TargetBranch, strings.Join(files, ", "), more)
}

// waitsToLand is true for a packet the conflict watch looks at: in review
// or done, with commits of its own not landed.
func waitsToLand(p store.Packet) bool {
	return p.Changes != nil && p.Landed == nil && (p.State == store.PacketDone || p.State == store.PacketInReview)
}

// readConflicts reads the conflict watch's findings for the packets read,
// when any of them waits to land: the board's cards show them.
func (w *workWindow) readConflicts() error {
	w.conflicts = nil
	if !slices.ContainsFunc(w.packets, waitsToLand) {
		return nil
	}
	got, err := view(w.g, mcpserver.MethodWorkConflicts, mcpserver.RepoScope{RepositoryID: w.filterID})
	if err != nil {
		return err
	}
	w.conflicts = make(map[string]mcpserver.PacketConflicts, len(got.Conflicts))
	for _, c := range got.Conflicts {
		if c.Conflicting() {
			w.conflicts[c.PacketID] = c
		}
	}
	return nil
}

// cardConflict is a card's second line and its importance: the badge
// before the usual line when the packet conflicts.
func (w *workWindow) cardConflict(p store.Packet, info string) (string, widget.Importance) {
	c, ok := w.conflicts[p.ID]
	if !ok || !waitsToLand(p) { // landed or sent back since the watch looked
		return info, widget.MediumImportance
	}
	return conflictBadge(c) + " · " + info, widget.DangerImportance
}

// conflictsRow is the detail's badge, with the target's commit, and the
// button that shows the hunks; nil when the packet does not conflict.
func (w *workWindow) conflictsRow(c *mcpserver.PacketConflicts) fyne.CanvasObject {
	if c == nil || !c.Conflicting() {
		return nil
	}
	badge := widget.NewLabelWithStyle(fmt.Sprintf("%s (%s at %.12s)", conflictBadge(*c), c.TargetBranch, c.Target), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	badge.Importance = widget.DangerImportance
	badge.Wrapping = fyne.TextWrapWord
	id := c.PacketID
	show := widget.NewButtonWithIcon(labelWorkShowConflicts, theme.WarningIcon(), func() { w.showConflicts(id) })
	send := widget.NewButtonWithIcon(labelWorkSendBack, theme.MailReplyIcon(), func() { w.sendBackConflicts(id) })
	var rebase *widget.Button
	rebase = widget.NewButtonWithIcon(fmt.Sprintf(labelWorkRebase, c.TargetBranch), theme.ViewRefreshIcon(), func() { w.rebasePacket(id, rebase) })
	return container.NewBorder(nil, nil, nil, container.NewHBox(show, rebase, send), badge)
}

// rebasePacket replays the packet's commits onto its target's tip, on a
// branch of their own (work.rebase), off the Fyne goroutine: git writes
// the commits. A conflict is said in the status line, nothing written.
func (w *workWindow) rebasePacket(id string, b *widget.Button) {
	b.Disable()
	w.showStatus("Rebasing…", widget.MediumImportance)
	w.g.background(func() {
		out, err := callWithin(w.g, landTimeout, mcpserver.TransportGUI, mcpserver.MethodWorkRebase, mcpserver.WorkConflictHunksArgs{PacketID: id})
		fyne.Do(func() {
			b.Enable()
			if err != nil {
				w.fail("Not rebased", err)
				return
			}
			w.note(fmt.Sprintf("Rebased onto %s at %.12s: the commits are on %s, which it lands from; the agent's branch is as it was.",
				out.Packet.Changes.BaseBranch, out.Onto, out.Branch))
			w.reload()
		})
	})
}

// sendBackConflicts sends the packet back to its agent with the conflict
// as its review; it keeps its attempt.
func (w *workWindow) sendBackConflicts(id string) {
	if _, err := call(w.g, mcpserver.TransportGUI, mcpserver.MethodWorkSendBackConflicts, mcpserver.WorkConflictHunksArgs{PacketID: id}); err != nil {
		w.fail("The packet could not be sent back", err)
		return
	}
	w.note("Sent back to its agent with the conflicts as its review; this does not count as an attempt.")
	w.reload()
}

// showConflicts shows a packet's conflicting hunks in a dialog over the
// window.
func (w *workWindow) showConflicts(id string) {
	h, err := call(w.g, mcpserver.TransportGUI, mcpserver.MethodWorkConflictHunks, mcpserver.WorkConflictHunksArgs{PacketID: id})
	if err != nil {
		w.fail("The conflicts could not be read", err)
		return
	}
	box := container.NewVBox()
	if len(h.Files) == 0 {
		box.Add(workWrapped(fmt.Sprintf("No conflict: the packet applies to %s at %.12s.", h.Status.TargetBranch, h.Status.Target)))
	}
	for _, f := range h.Files {
		box.Add(widget.NewLabelWithStyle(f.Path, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		for _, m := range f.Messages {
			box.Add(workDim(m))
		}
		if f.Note != "" {
			box.Add(workDim("(" + f.Note + ")"))
		}
		for _, hk := range f.Hunks {
			box.Add(workDim(fmt.Sprintf("line %d", hk.Line)))
			box.Add(workMono(strings.TrimSuffix(hk.Text, "\n")))
		}
		box.Add(widget.NewSeparator())
	}
	scroll := container.NewVScroll(box)
	scroll.SetMinSize(fyne.NewSize(640, 420))
	w.conflictHunks = box
	dialog.NewCustom(fmt.Sprintf(titleWorkConflicts, h.Status.TargetBranch), "Close", scroll, w.win).Show()
}
