package app

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/app/daemon"
)

// Connecting from the Team tab tries the database first; one that answers
// is saved and, when the person says so, the app quits to start again on
// it ("Later" leaves it for the next start); one that does not answer
// saves nothing and says why. A team database saved here is left by
// Disconnect; one a flag names is changed only there.
func TestSettingsTeamConnect(t *testing.T) {
	for _, tc := range []struct {
		name       string
		from       string
		connectErr error
		restart    bool // Restart now, else Later
		wantSaved  string
		wantQuit   bool
	}{
		{name: "connect and restart", restart: true, wantSaved: "postgres://ada@db.example/team", wantQuit: true},
		{name: "connect, later", wantSaved: "postgres://ada@db.example/team"},
		{name: "not answering", connectErr: errors.New("dial: connection refused")},
		{name: "disconnect", from: daemon.DatabaseFromSettings, restart: true, wantQuit: true},
		{name: "named by a flag", from: daemon.DatabaseFromFlag, wantSaved: "postgres://kept@db/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			log, _ := newTestLogger()
			quit := false
			g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() { quit = true })
			core := g.core.(*fakeCore)
			core.databaseFrom, core.connectErr = tc.from, tc.connectErr
			if tc.from != "" {
				core.database, core.saved = "postgres://kept@db/x", "postgres://kept@db/x"
			}
			g.showSettings()
			w := g.settings
			defer w.win.Close()
			w.tabs.SelectIndex(settingsTabTeam)
			c := w.team.connect
			switch {
			case tc.from == daemon.DatabaseFromFlag:
				if c.button != nil || !contains(textsIn(c.box), "named by --database") {
					t.Fatalf("a database a flag names: %q", textsIn(c.box))
				}
			case tc.from == daemon.DatabaseFromSettings:
				test.Tap(c.button)
				test.Tap(dialogButton(t, w.win, "Yes"))
			default:
				test.Type(c.entry, "postgres://ada@db.example/team")
				test.Tap(c.button)
				g.busy.Wait()
				if tc.connectErr != nil {
					if !contains(textsIn(c.box), "Not connected: dial: connection refused. Nothing was saved.") {
						t.Errorf("the refusal: %q", textsIn(c.box))
					}
					break
				}
			}
			if tc.from != daemon.DatabaseFromFlag && tc.connectErr == nil {
				label := labelTeamLater
				if tc.restart {
					label = labelTeamRestart
				}
				test.Tap(dialogButton(t, w.win, label))
			}
			core.mu.Lock()
			saved, restart := core.saved, core.restart
			core.mu.Unlock()
			if saved != tc.wantSaved || restart != tc.wantQuit || quit != tc.wantQuit {
				t.Errorf("saved %q, restart %v, quit %v; want %q, %v, %v", saved, restart, quit, tc.wantSaved, tc.wantQuit, tc.wantQuit)
			}
		})
	}
}

// contains reports whether a text of texts holds part.
func contains(texts []string, part string) bool {
	for _, s := range texts {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}
