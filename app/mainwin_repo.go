package app

// The main window's repository view: its name and settings (base branch,
// landing mode, setup command), saved together; its confinement and its
// removal, through Settings ▸ Repositories' own questions.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const (
	labelRepoSave       = "Save"
	labelRepoConfinment = "Confinement…"
	labelLandingDefault = "merge (the default)"
)

// repoPane shows one repository; on the Fyne goroutine only.
type repoPane struct {
	w       *sessionsWindow
	content fyne.CanvasObject
	repo    store.Repository // as shown

	title   *widget.Label
	path    *widget.Label
	name    *widget.Entry
	base    *widget.Entry
	landing *widget.Select
	setup   *widget.Entry
	confine *widget.Label
	status  *widget.Label
}

func newRepoPane(w *sessionsWindow) *repoPane {
	p := &repoPane{w: w}
	p.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.title.Truncation = fyne.TextTruncateEllipsis
	p.path = widget.NewLabel("")
	p.path.Truncation = fyne.TextTruncateEllipsis
	p.name = widget.NewEntry()
	p.base = widget.NewEntry()
	p.base.SetPlaceHolder("the branch checked out in the folder")
	p.landing = widget.NewSelect([]string{labelLandingDefault, string(store.LandingSquash), string(store.LandingRebase), string(store.LandingPullRequest)}, nil)
	p.setup = widget.NewEntry()
	p.setup.SetPlaceHolder("none: the worktree's .switchboard/setup, if any")
	p.confine = widget.NewLabel("")
	p.confine.Wrapping = fyne.TextWrapWord
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Name", p.name),
		widget.NewFormItem("Base branch", p.base),
		widget.NewFormItem("Landing", p.landing),
		widget.NewFormItem("Setup command", p.setup),
		widget.NewFormItem("Confinement", p.confine),
	)
	save := widget.NewButtonWithIcon(labelRepoSave, theme.DocumentSaveIcon(), p.save)
	save.Importance = widget.HighImportance
	// Confinement, renaming alone and removal ask their questions where
	// they are asked already: Settings ▸ Repositories, on this one.
	confine := widget.NewButtonWithIcon(labelRepoConfinment, theme.WarningIcon(), func() { p.inSettings((*settingsWindow).askConfinement) })
	remove := widget.NewButtonWithIcon(labelRemoveRepo, theme.DeleteIcon(), func() { p.inSettings((*settingsWindow).askRemove) })
	remove.Importance = widget.DangerImportance
	buttons := container.NewHBox(save, confine, layout.NewSpacer(), remove)
	p.content = container.NewVScroll(container.NewVBox(p.title, p.path, widget.NewSeparator(), form, buttons, p.status))
	return p
}

// show fills the pane from r, unless it shows r already with edits.
func (p *repoPane) show(r store.Repository) {
	if r.ID == p.repo.ID && p.edited() {
		return
	}
	p.repo = r
	p.title.SetText(repoDisplayName(r))
	p.path.SetText(r.Path + "  ·  " + r.ID)
	p.name.SetText(r.Name)
	p.base.SetText(r.Base)
	if r.Landing == store.LandingDefault || r.Landing == store.LandingMerge {
		p.landing.SetSelected(labelLandingDefault)
	} else {
		p.landing.SetSelected(string(r.Landing))
	}
	p.setup.SetText(r.Setup)
	if r.Unconfined != nil {
		p.confine.SetText("⚠ agents here run without Switchboard's sandbox")
	} else {
		p.confine.SetText("agents here run in Switchboard's sandbox")
	}
}

// landingMode is the select's choice as a mode.
func (p *repoPane) landingMode() store.Landing {
	if p.landing.Selected == labelLandingDefault {
		return store.LandingDefault
	}
	return store.Landing(p.landing.Selected)
}

// edited is whether the form differs from the repository shown.
func (p *repoPane) edited() bool {
	r := p.repo
	same := r.Landing == p.landingMode() || (r.Landing == store.LandingMerge && p.landingMode() == store.LandingDefault)
	return p.name.Text != r.Name || p.base.Text != r.Base || p.setup.Text != r.Setup || !same
}

// save renames and configures the repository as the form says; what the
// form does not show (isolation, remote, the confirmations) stays.
func (p *repoPane) save() {
	r := p.repo
	if p.name.Text != r.Name {
		if _, err := invoke(p.w.g, mcpserver.MethodRepositoryRename, mcpserver.RepositoryRenameArgs{RepositoryID: r.ID, Name: p.name.Text}); err != nil {
			p.status.SetText("Not renamed: " + err.Error())
			return
		}
	}
	set := r.RepositorySettings
	set.Base, set.Setup, set.Landing = p.base.Text, p.setup.Text, p.landingMode()
	out, err := invoke(p.w.g, mcpserver.MethodRepositoryConfigure, mcpserver.RepositoryConfigureArgs{RepositoryID: r.ID, RepositorySettings: set})
	if err != nil {
		p.status.SetText("Not saved: " + err.Error())
		return
	}
	p.repo = store.Repository{} // shown again from what was saved
	p.show(out.Repository)
	p.status.SetText("Saved.")
	expire(p.status, "Saved.")
	p.w.reload()
}

// inSettings opens Settings ▸ Repositories on this repository and asks
// ask there.
func (p *repoPane) inSettings(ask func(*settingsWindow)) {
	p.w.g.showSettings()
	s := p.w.g.settings
	s.tabs.SelectIndex(0)
	s.repoSel = p.repo.ID
	s.reselectRepo()
	ask(s)
}
