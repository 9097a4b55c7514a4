package app

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// noteLife is how long an outcome stays in a window's status line: long
// enough to read, not so long that it reads as the state of now.
const noteLife = 10 * time.Second

// expire clears label once noteLife has passed, if it still says text: an
// outcome ("Saved profile x") is news, not state. Errors are not given
// here: they stay until the next outcome replaces them.
func expire(label *widget.Label, text string) {
	time.AfterFunc(noteLife, func() {
		fyne.Do(func() {
			if label.Text == text {
				label.SetText("")
			}
		})
	})
}
