package app

import (
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2/widget"
)

// An outcome leaves the status line after noteLife; a newer text stays.
func TestStatusExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done, newer := widget.NewLabel("Saved."), widget.NewLabel("Saved.")
		expire(done, "Saved.")
		expire(newer, "Saved.")
		newer.SetText("Failed: disk full")
		// A sleep on the bubble's fake clock: it passes at once.
		time.Sleep(noteLife - time.Second)
		synctest.Wait()
		if done.Text != "Saved." {
			t.Fatalf("cleared after %v: %q", noteLife-time.Second, done.Text)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if done.Text != "" {
			t.Errorf("still %q after %v", done.Text, noteLife)
		}
		if newer.Text != "Failed: disk full" {
			t.Errorf("a newer text was cleared: %q", newer.Text)
		}
	})
}
