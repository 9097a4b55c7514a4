package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The Repositories tab's confinement button, by the selected repository's
// state; also what the tests tap.
const (
	labelLetUnconfined = "Run agents unconfined…"
	labelConfineAgain  = "Confine agents again…"
	labelRenameRepo    = "Rename…"
	labelRemoveRepo    = "Remove…"
)

func (w *settingsWindow) reposTab() fyne.CanvasObject {
	w.repoList = widget.NewList(
		func() int { return len(w.repos) },
		twoLines,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			r := w.repos[i]
			title := r.Name
			if r.Unconfined != nil {
				// The person chose it; it stays in sight.
				title += "  ⚠ agents unconfined"
			}
			setTwoLines(o, title, r.Path+"  ·  "+r.ID)
		})
	w.repoList.OnSelected = func(i widget.ListItemID) {
		w.repoSel = w.repos[i].ID
		w.showRepoActions()
	}
	w.repoList.OnUnselected = func(widget.ListItemID) {
		w.repoSel = ""
		w.showRepoActions()
	}
	add := widget.NewButtonWithIcon(labelAddRepo, theme.FolderNewIcon(), func() {
		dialog.ShowFolderOpen(func(dir fyne.ListableURI, err error) {
			if err != nil || dir == nil {
				return
			}
			w.addRepository(dir.Path())
		}, w.win)
	})
	add.Importance = widget.HighImportance
	w.repoConfine = widget.NewButtonWithIcon(labelLetUnconfined, theme.WarningIcon(), w.askConfinement)
	w.repoRename = widget.NewButtonWithIcon(labelRenameRepo, theme.DocumentCreateIcon(), w.askRename)
	w.repoRemove = widget.NewButtonWithIcon(labelRemoveRepo, theme.DeleteIcon(), w.askRemove)
	for _, b := range []*widget.Button{w.repoConfine, w.repoRename, w.repoRemove} {
		b.Disable()
	}
	// On a line of its own and wrapped: beside the buttons it would set
	// the window's least width.
	note := widget.NewLabel("Agents work only in registered folders; a session token reaches one repository. " +
		"Select one to rename it, remove it, or change whether its agents run in Switchboard's sandbox.")
	note.Wrapping = fyne.TextWrapWord
	return container.NewBorder(container.NewVBox(container.NewHBox(add, w.repoRename, w.repoRemove, w.repoConfine), note), nil, nil, nil, w.repoList)
}

// reselectRepo keeps the selected repository selected through a reload
// (its row may have moved), or clears the selection when it is gone.
func (w *settingsWindow) reselectRepo() {
	if _, i := w.selectedRepo(); i >= 0 {
		w.repoList.Select(i)
	} else if w.repoSel != "" {
		w.repoList.UnselectAll()
	}
	w.showRepoActions()
}

// selectedRepo is the selected repository and its row, or -1.
func (w *settingsWindow) selectedRepo() (store.Repository, int) {
	for i, r := range w.repos {
		if r.ID == w.repoSel && w.repoSel != "" {
			return r, i
		}
	}
	return store.Repository{}, -1
}

// showRepoActions sets the confinement button for the selected repository.
func (w *settingsWindow) showRepoActions() {
	r, i := w.selectedRepo()
	switch {
	case i < 0:
		w.repoConfine.SetText(labelLetUnconfined)
		for _, b := range []*widget.Button{w.repoConfine, w.repoRename, w.repoRemove} {
			b.Disable()
		}
		return
	case r.Unconfined != nil:
		w.repoConfine.SetText(labelConfineAgain)
		w.repoConfine.SetIcon(theme.VisibilityOffIcon())
	default:
		w.repoConfine.SetText(labelLetUnconfined)
		w.repoConfine.SetIcon(theme.WarningIcon())
	}
	for _, b := range []*widget.Button{w.repoConfine, w.repoRename, w.repoRemove} {
		b.Enable()
	}
}

// askRename asks for the selected repository's new name.
func (w *settingsWindow) askRename() {
	r, i := w.selectedRepo()
	if i < 0 {
		return
	}
	name := widget.NewEntry()
	name.SetText(r.Name)
	dialog.ShowForm("Rename "+r.Name, "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		if !ok {
			return
		}
		out, err := invoke(w.g, mcpserver.MethodRepositoryRename, mcpserver.RepositoryRenameArgs{RepositoryID: r.ID, Name: name.Text})
		if err != nil {
			w.fail("rename "+r.Name, err)
			return
		}
		w.note(r.Name + " is now " + out.Repository.Name + ".")
		w.reload()
	}, w.win)
}

// askRemove asks before Switchboard forgets the selected repository.
func (w *settingsWindow) askRemove() {
	r, i := w.selectedRepo()
	if i < 0 {
		return
	}
	msg := widget.NewLabel("Switchboard forgets " + r.Name + ". Its folder " + r.Path + " is left exactly as it is, and its " +
		"finished packets and sessions stay in the records. This is refused while an agent runs there or work of it is unfinished.")
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Remove "+r.Name+"?", "Remove", "Cancel", msg, func(ok bool) {
		if !ok {
			return
		}
		if _, err := invoke(w.g, mcpserver.MethodRepositoryRemove, mcpserver.RepositoryArgs{RepositoryID: r.ID}); err != nil {
			w.fail("remove "+r.Name, err)
			return
		}
		w.note("Removed " + r.Name + "; its folder is left as it is.")
		w.reload()
	}, w.win)
	d.Resize(fyne.NewSize(480, 0))
	d.Show()
}

// askConfinement asks before the selected repository's agents run
// unconfined (or confined again), saying what that means; the choice
// takes effect for the next agent started there.
func (w *settingsWindow) askConfinement() {
	r, i := w.selectedRepo()
	if i < 0 {
		return
	}
	title, text, confirm := "Run agents unconfined?",
		"Agents started in "+r.Name+" will run without Switchboard's sandbox: they can read and write "+
			"whatever you can (your keys, your other repositories, Switchboard's database), and none "+
			"may run in full auto. Agents already running keep their sandbox.", "Run unconfined"
	if r.Unconfined != nil {
		title, text, confirm = "Confine agents again?",
			"Agents started in "+r.Name+" from now on run in Switchboard's sandbox again. Agents already "+
				"running stay as they are until they are stopped.", "Confine"
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(title, confirm, "Cancel", msg, func(ok bool) {
		if !ok {
			return
		}
		out, err := invoke(w.g, mcpserver.MethodRepositoryUnconfined, mcpserver.RepositoryUnconfinedArgs{RepositoryID: r.ID, Unconfined: r.Unconfined == nil})
		if err != nil {
			w.fail("change "+r.Name+"'s confinement", err)
			return
		}
		if out.Repository.Unconfined != nil {
			w.note("Agents started in " + r.Name + " now run unconfined.")
		} else {
			w.note("Agents started in " + r.Name + " run confined again.")
		}
		w.reload()
	}, w.win)
	d.Resize(fyne.NewSize(480, 0))
	d.Show()
}

// addRepository registers path (the folder picker's choice).
func (w *settingsWindow) addRepository(path string) {
	out, err := invoke(w.g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: path})
	if err != nil {
		w.fail("register "+path, err)
		return
	}
	if out.Created {
		w.note("Registered " + out.Repository.Path + " as " + out.Repository.ID)
	} else {
		w.note(out.Repository.Path + " was registered already (" + out.Repository.ID + ")")
	}
	w.reload()
}
