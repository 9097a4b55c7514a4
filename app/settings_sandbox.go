package app

import (
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

const (
	labelSandboxTab  = "Sandbox"
	labelSaveSandbox = "Save"
	// textSandboxNote says what every confined agent is kept from
	// already, so that a person adds only what is theirs.
	textSandboxNote = "Each agent runs in a sandbox of its own (bubblewrap, or Landlock where user namespaces are refused): " +
		"it can write its worktree and its CLI's own settings, and read the rest. It never sees Switchboard's data " +
		"and runtime folders, other agents' worktrees, the session bus, or ~/.ssh, ~/.gnupg, ~/.aws, ~/.config/gh, " +
		"~/.netrc, ~/.docker and ~/.kube. Add here folders and files of yours it must not see either. " +
		"Changes apply to the next agent started."
)

// sandboxTab shows and saves the paths hidden from every agent and the cap
// of each session's recording (sandbox.get, sandbox.put).
func (w *settingsWindow) sandboxTab() fyne.CanvasObject {
	saved, err := view(w.g, mcpserver.MethodSandboxGet, mcpserver.NoArgs{})
	if err != nil {
		w.g.log.Warn("settings: sandbox", "err", err)
	}
	hidden := widget.NewMultiLineEntry()
	hidden.SetPlaceHolder("/home/you/private (one absolute path per line)")
	hidden.SetText(strings.Join(saved.Hidden, "\n"))
	hidden.SetMinRowsVisible(4)
	capMiB := widget.NewEntry()
	capMiB.SetPlaceHolder("256")
	if saved.RecordingCapMiB > 0 {
		capMiB.SetText(strconv.Itoa(saved.RecordingCapMiB))
	}
	note := widget.NewLabel(textSandboxNote)
	note.Wrapping = fyne.TextWrapWord
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	status.Hide()
	save := widget.NewButtonWithIcon(labelSaveSandbox, theme.DocumentSaveIcon(), func() {
		in := mcpserver.SandboxSettings{}
		for _, p := range strings.Split(hidden.Text, "\n") {
			if p = strings.TrimSpace(p); p != "" {
				in.Hidden = append(in.Hidden, p)
			}
		}
		if t := strings.TrimSpace(capMiB.Text); t != "" {
			n, err := strconv.Atoi(t)
			if err != nil {
				status.SetText("The recording cap is a number of MiB (empty: 256).")
				status.Show()
				return
			}
			in.RecordingCapMiB = n
		}
		out, err := invoke(w.g, mcpserver.MethodSandboxPut, in)
		if err != nil {
			status.SetText(refusalText(err))
		} else {
			hidden.SetText(strings.Join(out.Hidden, "\n"))
			status.SetText("Saved. The next agent started is kept from these too.")
		}
		status.Show()
	})
	save.Importance = widget.HighImportance
	return container.NewVScroll(container.NewVBox(
		note,
		widget.NewForm(
			widget.NewFormItem("Also hidden", hidden),
			widget.NewFormItem("Recording cap (MiB)", capMiB),
		),
		container.NewHBox(layout.NewSpacer(), save),
		status,
	))
}
