package dialog

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Switchboard's patch (PATCH.md): Escape closes the dialog on top, as it does on
// every desktop. Upstream's dialogs close only through their buttons, and a key
// goes to the focused widget first, so no app code can catch Escape while an
// entry in a form has the focus; the GLFW driver asks DismissTop before that.

// escaper is the layout of a dialog's popup, which knows how to dismiss it.
type escaper interface {
	escape()
}

// DismissTop dismisses the dialog shown on top of c, as its dismiss (cancel)
// button would, and reports whether there was one. A popup that is not a
// dialog (a menu, a select's list) is left alone.
func DismissTop(c fyne.Canvas) bool {
	if c == nil {
		return false
	}
	p, ok := c.Overlays().Top().(*widget.PopUp)
	if !ok || !p.Visible() {
		return false
	}
	box, ok := p.Content.(*fyne.Container)
	if !ok {
		return false
	}
	e, ok := box.Layout.(escaper)
	if !ok {
		return false
	}
	e.escape()
	return true
}

func (l *dialogLayout) escape() {
	if l.d.dismiss != nil {
		// The button's own handler: a confirm's "No", a form's cancel.
		l.d.dismiss.OnTapped()
		return
	}
	l.d.Hide()
}

// escapeLayout stacks the file dialog's interface, which has no layout of
// its own to carry escape.
type escapeLayout struct {
	stack   fyne.Layout
	dismiss func()
}

func (l *escapeLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	l.stack.Layout(objects, size)
}

func (l *escapeLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	return l.stack.MinSize(objects)
}

func (l *escapeLayout) escape() { l.dismiss() }
