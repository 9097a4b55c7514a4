package dialog

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The patch's own test: DismissTop closes each kind of dialog as its cancel
// button would, the top one first, and leaves other popups alone.
func TestDismissTop(t *testing.T) {
	test.NewTempApp(t)

	cases := []struct {
		name string
		show func(w fyne.Window, done func(ok bool))
	}{
		{"confirm", func(w fyne.Window, done func(bool)) {
			ShowConfirm("Sure?", "Really.", done, w)
		}},
		{"form with a focused entry", func(w fyne.Window, done func(bool)) {
			e := widget.NewEntry()
			d := NewForm("Name", "Save", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", e)}, done, w)
			d.Show()
			w.Canvas().Focus(e)
		}},
		{"information", func(w fyne.Window, done func(bool)) {
			d := NewInformation("Note", "Something.", w)
			d.SetOnClosed(func() { done(false) })
			d.Show()
		}},
		{"custom without buttons", func(w fyne.Window, done func(bool)) {
			d := NewCustomWithoutButtons("Custom", widget.NewLabel("body"), w)
			d.SetOnClosed(func() { done(false) })
			d.Show()
		}},
		{"file open", func(w fyne.Window, done func(bool)) {
			d := NewFileOpen(func(r fyne.URIReadCloser, err error) { done(r != nil) }, w)
			d.Show()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := test.NewWindow(widget.NewLabel("behind"))
			w.Resize(fyne.NewSize(800, 600))
			defer w.Close()
			calls, answer := 0, true
			c.show(w, func(ok bool) { calls++; answer = ok })
			if w.Canvas().Overlays().Top() == nil {
				t.Fatal("no dialog shown")
			}
			if !DismissTop(w.Canvas()) {
				t.Fatal("DismissTop found no dialog")
			}
			if calls != 1 || answer {
				t.Errorf("callback ran %d times with %v, want once with a cancel", calls, answer)
			}
			if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
				t.Errorf("dialog still shown: %T", top)
			}
			if DismissTop(w.Canvas()) {
				t.Error("DismissTop found a second dialog")
			}
		})
	}

	t.Run("stacked: top first", func(t *testing.T) {
		w := test.NewWindow(widget.NewLabel("behind"))
		defer w.Close()
		var closed []string
		ShowConfirm("First", "", func(bool) { closed = append(closed, "first") }, w)
		ShowConfirm("Second", "", func(bool) { closed = append(closed, "second") }, w)
		DismissTop(w.Canvas())
		if len(closed) != 1 || closed[0] != "second" {
			t.Fatalf("closed %v, want the second only", closed)
		}
	})

	t.Run("a plain popup is not a dialog", func(t *testing.T) {
		w := test.NewWindow(widget.NewLabel("behind"))
		defer w.Close()
		p := widget.NewPopUp(widget.NewLabel("tip"), w.Canvas())
		p.Show()
		if DismissTop(w.Canvas()) {
			t.Error("DismissTop closed a popup that is no dialog")
		}
		if !p.Visible() {
			t.Error("the popup was hidden")
		}
		if DismissTop(nil) {
			t.Error("DismissTop(nil) found a dialog")
		}
	})
}
