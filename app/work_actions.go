package app

// The Work board's actions on the selected packet (cancel, requeue, the
// review verdicts) and the prompt that asks for a reason or notes first.

import (
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// workAct runs a method on the selected packet and shows the outcome, done
// when it succeeded.
func workAct[In any](w *workWindow, name mcpserver.Name[In, mcpserver.PacketResult], in In, done string) bool {
	if err := workActErr(w, name, in, done); err != nil {
		w.fail("Not done", err)
		return false
	}
	return true
}

func (w *workWindow) askCancel() {
	id := w.selected
	w.ask("Cancel packet", "Reason (optional)", labelWorkCancelPacket, false, func(reason string) error {
		return workActErr(w, mcpserver.MethodWorkCancel, mcpserver.PacketRef{PacketID: id, Reason: reason}, "Packet cancelled.")
	})
}

func (w *workWindow) askRequeue() {
	id := w.selected
	w.ask("Requeue packet", "Reason (optional)", labelWorkRequeue, false, func(reason string) error {
		return workActErr(w, mcpserver.MethodWorkRequeue, mcpserver.PacketRef{PacketID: id, Reason: reason}, "Packet back in the queue.")
	})
}

func (w *workWindow) askChanges() {
	id := w.selected
	w.ask("Request changes", "What must change (the next agent reads this)", labelWorkRequestChange, true, func(notes string) error {
		return workActErr(w, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{PacketID: id, Verdict: store.VerdictRequestChanges, Notes: notes}, "Changes requested: the packet is back in the queue.")
	})
}

func (w *workWindow) askReject() {
	id := w.selected
	w.ask("Reject packet", "Why (optional)", labelWorkReject, false, func(notes string) error {
		return workActErr(w, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{PacketID: id, Verdict: store.VerdictReject, Notes: notes}, "Packet rejected.")
	})
}

func (w *workWindow) verdict(v store.Verdict, notes string) {
	workAct(w, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{PacketID: w.selected, Verdict: v, Notes: notes}, "Packet approved: nothing landed. Changes ▸ Land ▾ lands it.")
}

// workActErr is workAct for a prompt, which shows the error itself.
func workActErr[In any](w *workWindow, name mcpserver.Name[In, mcpserver.PacketResult], in In, done string) error {
	if _, err := invoke(w.g, name, in); err != nil {
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
