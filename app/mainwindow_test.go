package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// The main window opens at start where the tray alone would show nothing
// (no tray host, or nothing set up yet), and a second launch brings it
// forward; on a desktop without a tray it says so, and closing it asks
// whether to quit: Keep running hides it, and a second launch shows it again.
func TestMainWindowAtStart(t *testing.T) {
	for _, tt := range []struct {
		name     string
		trayHost bool
		repos    int
		opens    bool
	}{
		{"first run with a tray", true, 0, true},
		{"set up, with a tray", true, 1, false},
		{"no tray host", false, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			log, _ := newTestLogger()
			quits := 0
			g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() { quits++ })
			g.openAtStart(tt.trayHost, trayModel{repos: make([]store.Repository, tt.repos)})
			if opened := g.sessions != nil; opened != tt.opens {
				t.Fatalf("the main window opened: %v, want %v", opened, tt.opens)
			}
			fake := g.core.(*fakeCore)
			if fake.show == nil || !fake.show() || g.sessions == nil {
				t.Fatal("a second launch did not bring the main window forward")
			}
			win := g.sessions.win
			_, notice := findIn(win.Content(), func(l *widget.Label) bool { return l.Text == labelNoTray })
			if notice != !tt.trayHost {
				t.Errorf("the no-tray notice shows: %v, want %v", notice, !tt.trayHost)
			}
			if menu := win.MainMenu(); (menu != nil) != !tt.trayHost {
				t.Errorf("the window's menu bar: %v, want one only without a tray", menu)
			} else if menu != nil && !slices.Contains(labels(menu.Items[0]), labelSettings) {
				t.Errorf("the window's menu %q lacks %q", labels(menu.Items[0]), labelSettings)
			}
			if tt.trayHost {
				return
			}
			// What closing the window runs (the test driver does not
			// intercept a close).
			g.askQuit(win)
			msg, ok := findIn(win.Canvas().Overlays().Top(), func(l *widget.Label) bool { return strings.HasPrefix(l.Text, "There is no system tray") })
			if !ok || !strings.Contains(msg.Text, "start Switchboard again") {
				t.Fatalf("the question on close: %v", msg)
			}
			test.Tap(dialogButton(t, win, labelKeepRunning))
			if quits != 0 {
				t.Error("Keep running quit the app")
			}
			if !fake.show() || g.sessions == nil || g.sessions.win != win {
				t.Fatal("a second launch did not bring the hidden window back")
			}
			g.askQuit(win)
			test.Tap(dialogButton(t, win, labelQuitNoTray))
			if quits != 1 {
				t.Errorf("Quit ran %d times, want once", quits)
			}
		})
	}
}
