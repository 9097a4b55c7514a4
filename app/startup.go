package app

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/autostart"
)

// Start at login: the same toggle in Settings ▸ Connection and in the tray, both acting on
// the autostart entry itself (internal/autostart), as `switchboard autostart` does. It is a
// file in the person's config folder, not registry state, so no registry call is made.
const (
	labelStartAtLogin = "Start at login"
	labelStartupForm  = "At login"
	labelReplaceEntry = "Replace it"
	labelRemoveEntry  = "Remove it"
)

// startupConfig is where the autostart entry lives and which binary it starts. RunTray
// sets the process's; tests set their own.
type startupConfig struct {
	env autostart.Env
	// executable is the binary the entry starts; nil means the running one.
	executable func() (string, error)
}

// startupEnv is where the autostart entry lives. A gui built without one (most tests) has
// an empty environment, in which the entry has no place: the toggles then show that error
// rather than reading the real ~/.config of whoever runs the tests.
func (g *gui) startupEnv() autostart.Env {
	if g.startup.env.Getenv != nil {
		return g.startup.env
	}
	return autostart.Env{Getenv: func(string) string { return "" }}
}

// startupExe is the binary an entry written now starts.
func (g *gui) startupExe() (string, error) {
	if g.startup.executable != nil {
		return g.startup.executable()
	}
	return autostart.Executable()
}

// setStartAtLogin turns the entry on (for the running binary) or off. force replaces or
// removes an entry Switchboard did not write or that was edited by hand.
func (g *gui) setStartAtLogin(on, force bool) (autostart.State, error) {
	env := g.startupEnv()
	if !on {
		return env.Disable(force)
	}
	exe, err := g.startupExe()
	if err != nil {
		return autostart.State{}, err
	}
	return env.Enable(exe, force)
}

// startAtLoginItem is the tray's checked "Start at login". The tray has no window to ask
// in, so an entry that is not Switchboard's own is left alone and a notification says
// where to decide (Settings asks; the CLI takes --force).
func (g *gui) startAtLoginItem(on bool) *fyne.MenuItem {
	it := fyne.NewMenuItem(labelStartAtLogin, func() {
		st, err := g.setStartAtLogin(!on, false)
		if err != nil {
			g.log.Warn("tray: start at login", "on", !on, "err", err)
			msg := err.Error()
			if errors.Is(err, autostart.ErrNotOurs) || errors.Is(err, autostart.ErrEdited) {
				msg += ". Settings ▸ Connection can replace it."
			}
			g.app.SendNotification(fyne.NewNotification("Switchboard: start at login unchanged", msg))
		} else {
			g.log.Info("tray: start at login", "on", st.Enabled, "entry", st.Path)
		}
		g.startupChanged()
	})
	it.Checked = on
	return it
}

// startAtLoginOn reads whether the entry will start Switchboard at login, for the tray.
// Unreadable counts as off; Settings shows why.
func (g *gui) startAtLoginOn() bool {
	st, err := g.startupEnv().Status()
	return err == nil && st.Enabled
}

// startupChanged shows a toggle's effect in the other place: the open Settings window at
// once; the tray reads the entry on its next tick (refreshTray), which also catches
// `switchboard autostart` run in a terminal.
func (g *gui) startupChanged() {
	if g.settings != nil && g.settings.startup != nil {
		g.settings.startup.load()
	}
}

// startupPane is Settings' start-at-login toggle and what it says about the entry.
type startupPane struct {
	g     *gui
	win   fyne.Window
	check *widget.Check
	note  *widget.Label
	// loading is set while load sets the check, whose OnChanged would otherwise act.
	loading bool
}

func newStartupPane(g *gui, win fyne.Window) *startupPane {
	p := &startupPane{g: g, win: win, note: widget.NewLabel("")}
	p.note.Wrapping = fyne.TextWrapWord
	p.check = widget.NewCheck("Start Switchboard when I log in", func(on bool) {
		if !p.loading {
			p.set(on, false)
		}
	})
	p.load()
	return p
}

// object is the pane as a form: the check, and the note below it.
func (p *startupPane) object() fyne.CanvasObject {
	return widget.NewForm(widget.NewFormItem(labelStartupForm, container.NewVBox(p.check, p.note)))
}

// load shows the entry as it is now.
func (p *startupPane) load() {
	st, err := p.g.startupEnv().Status()
	p.loading = true
	p.check.SetChecked(err == nil && st.Enabled)
	p.loading = false
	if err != nil {
		p.check.Disable()
		p.note.SetText(err.Error())
		return
	}
	p.check.Enable()
	exe, _ := p.g.startupExe()
	p.note.SetText(startupNote(st, exe))
}

// set turns the entry on or off. An entry that is not Switchboard's own is replaced or
// removed only when the person says so.
func (p *startupPane) set(on, force bool) {
	st, err := p.g.setStartAtLogin(on, force)
	switch {
	case err == nil:
	case !force && (errors.Is(err, autostart.ErrNotOurs) || errors.Is(err, autostart.ErrEdited)):
		whose := "was not written by Switchboard."
		if errors.Is(err, autostart.ErrEdited) {
			whose = "was edited by hand since Switchboard wrote it."
		}
		question, confirm := "Replace it with Switchboard's own?", labelReplaceEntry
		if !on {
			question, confirm = "Remove it?", labelRemoveEntry
		}
		d := dialog.NewConfirm(labelStartAtLogin, st.Path+"\n"+whose+"\n\n"+question, func(yes bool) {
			if yes {
				p.set(on, true)
			}
		}, p.win)
		d.SetConfirmText(confirm)
		d.SetDismissText("Cancel")
		d.Show()
	default:
		p.g.log.Warn("settings: start at login", "on", on, "err", err)
		dialog.ShowError(err, p.win)
	}
	p.g.startupChanged()
}

// startupNote says where the entry is and anything about it a person should know; exe is
// the binary turning it on would start ("" when unknown).
func startupNote(st autostart.State, exe string) string {
	var note string
	switch {
	case !st.Exists:
		note = "Turning it on writes " + st.Path + "."
	case !st.Ours:
		note = st.Path + " was not written by Switchboard."
	case st.Edited:
		note = st.Path + " was edited by hand since Switchboard wrote it."
	default:
		note = "Starts " + st.Exec + " (" + st.Path + ")."
	}
	if st.Exists && !st.Enabled {
		note += " It is there but switched off (Hidden)."
	}
	switch {
	case st.ExecMissing && st.Ours:
		note += " The program it starts no longer exists: turn it off and on again from the installed Switchboard."
	case st.ExecMissing:
		note += " The program it starts no longer exists."
	case exe != "" && st.Ours && st.Exec != exe:
		note += " This Switchboard runs from " + exe + "."
	}
	if exe != "" && autostart.Transient(exe) {
		note += " This Switchboard is a temporary build (go run): install it first."
	}
	return note
}
