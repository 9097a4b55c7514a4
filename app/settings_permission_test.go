package app

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Saving an edit of a built-in in Settings keeps its permission modes,
// which the form does not show.
func TestSettingsProfileKeepsPermissions(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	g.showSettings()
	defer g.settings.win.Close()
	var claude supervisor.ProfileInfo
	for _, p := range supervisor.MergeProfiles(nil) {
		if p.ID == "claude" {
			claude = p
		}
	}
	g.settings.editProfile(claude.Profile)
	test.Tap(dialogButton(t, g.settings.win, "Save"))
	list, err := invoke(g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Profiles {
		if p.ID == "claude" && (!p.Edited || !reflect.DeepEqual(p.Permissions, claude.Permissions)) {
			t.Errorf("after a save: edited %v, permissions %q; want %q", p.Edited, p.Permissions, claude.Permissions)
		}
	}
}
