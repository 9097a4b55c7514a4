package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// Escape closes each of the app's dialogs as its cancel button would, with
// the focus in one of the dialog's entries: nothing the dialog would have
// done is done, and the window is usable again. The GLFW driver calls
// dialog.DismissTop on Escape (the Fyne patch, PATCH.md); the test driver
// has no key loop, so the test makes that call.
func TestEscapeClosesDialogs(t *testing.T) {
	for _, tc := range []struct {
		name string
		// open shows the dialog in a window of g and returns the window.
		open func(g *gui) fyne.Window
		// undone checks that what the dialog would have done was not.
		undone func(t *testing.T, g *gui)
	}{
		{"create token", func(g *gui) fyne.Window {
			g.showSettings()
			g.settings.createToken()
			return g.settings.win
		}, func(t *testing.T, g *gui) {
			tokens, err := invoke(g, mcpserver.MethodTokenList, mcpserver.TokenListArgs{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tok := range tokens.Tokens {
				if tok.Label == "typed" {
					t.Errorf("token %s created", tok.KeyID)
				}
			}
		}},
		{"agent profile", func(g *gui) fyne.Window {
			g.showSettings()
			g.settings.editProfile(profile.Profile{})
			return g.settings.win
		}, func(t *testing.T, g *gui) {
			profiles, err := invoke(g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range profiles.Profiles {
				if p.ID == "typed" {
					t.Error("profile saved")
				}
			}
		}},
		{"new packet", func(g *gui) fyne.Window {
			g.showNewPacket()
			return g.sessions.win
		}, func(t *testing.T, g *gui) {
			if g.sessions.board.form != nil {
				t.Error("the Work board still holds the form")
			}
			list, err := invoke(g, mcpserver.MethodWorkList, store.PacketFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Packets) != 0 {
				t.Errorf("%d packets created", len(list.Packets))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			log, _ := newTestLogger()
			g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
			if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"}); err != nil {
				t.Fatal(err)
			}
			var win fyne.Window
			fyne.DoAndWait(func() { win = tc.open(g) })
			t.Cleanup(func() { fyne.DoAndWait(win.Close) })
			c := win.Canvas()
			fyne.DoAndWait(func() {
				if c.Overlays().Top() == nil {
					t.Fatal("no dialog shown")
				}
				// The focus in an entry of the dialog, as a person typing.
				e, ok := c.Focused().(*widget.Entry)
				if !ok {
					for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
						if e, ok = o.(*widget.Entry); ok && !e.Disabled() {
							c.Focus(e)
							break
						}
					}
				}
				if e == nil {
					t.Fatal("the dialog has no entry")
				}
				test.Type(e, "typed")
				if !dialog.DismissTop(c) {
					t.Fatal("DismissTop found no dialog")
				}
				if top := c.Overlays().Top(); top != nil {
					t.Errorf("a dialog is still shown: %T", top)
				}
				if dialog.DismissTop(c) {
					t.Error("a second Escape found another dialog")
				}
			})
			tc.undone(t, g)
		})
	}
}
