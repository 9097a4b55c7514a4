package app

// The Work board's New packet form.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

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
	var res mcpserver.PacketResult
	if err == nil {
		res, err = invoke(w.g, mcpserver.MethodWorkCreate, args)
	}
	if err != nil {
		f.err.SetText(refusalText(err))
		f.err.Show()
		return
	}
	f.dlg.Hide()
	w.note("Packet " + res.Packet.ID + " queued.")
	w.selected = res.Packet.ID
	w.reload()
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
