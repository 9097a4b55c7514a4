package app

// A repository with no commit yet: an agent's worktree starts from a
// commit, so starting one there is refused (repository_empty). The person
// is offered the two ways on: an empty first commit, which touches nothing
// of theirs, or this agent working in the folder itself.

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Words of the offer, also what the tests look for.
const (
	titleEmptyRepo       = "This repository has no commit yet"
	textEmptyRepo        = "An agent works in a git worktree of its own, which starts from a commit, and this repository has none yet."
	labelFirstCommit     = "Make a first commit"
	textFirstCommit      = "An empty commit on the current branch, in your name. What is in the folder or staged stays as it is."
	labelRunInFolder     = "Run in the folder"
	textRunInFolder      = "This agent works in the repository's folder itself, on your files, with no worktree between."
	labelEmptyRepoCancel = "Cancel"
)

// emptyRepository reports whether err refuses a start for want of a first
// commit.
func emptyRepository(err error) bool {
	var d *store.Denial
	return errors.As(err, &d) && d.Code == store.CodeRepositoryEmpty
}

// offerFirstCommit asks, over win, how to start args's agent in a
// repository with no commit: after a first commit, or in the folder
// itself; started is called with the agent's start as start reports it.
// Runs on the Fyne goroutine; the start runs off it.
func (g *gui) offerFirstCommit(win fyne.Window, args mcpserver.AgentStartArgs, started func(mcpserver.AgentStarted, error)) {
	var d dialog.Dialog
	start := func(args mcpserver.AgentStartArgs) {
		d.Hide()
		g.background(func() {
			out, err := invoke(g, mcpserver.MethodAgentStart, args)
			fyne.Do(func() { started(out, err) })
		})
	}
	first := widget.NewButton(labelFirstCommit, func() {
		d.Hide()
		g.background(func() {
			_, err := invoke(g, mcpserver.MethodRepositoryFirstCommit, mcpserver.RepositoryArgs{RepositoryID: args.RepositoryID})
			if err != nil {
				fyne.Do(func() { started(mcpserver.AgentStarted{}, err) })
				return
			}
			out, err := invoke(g, mcpserver.MethodAgentStart, args)
			fyne.Do(func() { started(out, err) })
		})
	})
	first.Importance = widget.HighImportance
	folder := widget.NewButton(labelRunInFolder, func() {
		in := args
		in.NoWorktree = true
		start(in)
	})
	body := container.NewVBox(wrappedLabel(textEmptyRepo),
		container.NewBorder(nil, nil, nil, first, wrappedLabel(textFirstCommit)),
		container.NewBorder(nil, nil, nil, folder, wrappedLabel(textRunInFolder)))
	d = dialog.NewCustom(titleEmptyRepo, labelEmptyRepoCancel, body, win)
	d.Resize(fyne.NewSize(620, d.MinSize().Height))
	d.Show()
}
