package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// A repository's agents are let run unconfined from the Repositories tab,
// after a confirmation that says what it means, and confined again the
// same way; the selection stays on the repository through reloads that
// add rows before it.
func TestSettingsRepositoryConfinement(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	g.showSettings()
	w := g.settings
	root := t.TempDir()
	for _, d := range []string{"aaa", "mmm", "zzz"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.addRepository(filepath.Join(root, "mmm"))
	if !w.repoConfine.Disabled() {
		t.Error("the confinement button is enabled with no repository selected")
	}
	w.repoList.Select(0)
	chosen := w.repos[0].ID
	// More repositories, some listed before it.
	w.addRepository(filepath.Join(root, "aaa"))
	w.addRepository(filepath.Join(root, "zzz"))
	selected := func() string {
		t.Helper()
		r, i := w.selectedRepo()
		if i < 0 {
			t.Fatal("no repository selected")
		}
		return r.ID
	}
	if got := selected(); got != chosen {
		t.Fatalf("selection moved from %s to %s when rows were added", chosen, got)
	}

	for _, tt := range []struct {
		button, confirm string
		unconfined      bool
		after           string
	}{
		{labelLetUnconfined, "Run unconfined", true, labelConfineAgain},
		{labelConfineAgain, "Confine", false, labelLetUnconfined},
	} {
		if w.repoConfine.Text != tt.button || w.repoConfine.Disabled() {
			t.Fatalf("the button reads %q (disabled %v), want %q", w.repoConfine.Text, w.repoConfine.Disabled(), tt.button)
		}
		test.Tap(w.repoConfine)
		test.Tap(dialogButton(t, w.win, tt.confirm))
		r, _ := w.selectedRepo()
		if r.ID != chosen || (r.Unconfined != nil) != tt.unconfined {
			t.Errorf("after %q: repository %s unconfined=%v, want %s unconfined=%v", tt.confirm, r.ID, r.Unconfined != nil, chosen, tt.unconfined)
		}
		if w.repoConfine.Text != tt.after {
			t.Errorf("after %q the button reads %q, want %q", tt.confirm, w.repoConfine.Text, tt.after)
		}
	}
	// Cancel changes nothing.
	test.Tap(w.repoConfine)
	test.Tap(dialogButton(t, w.win, "Cancel"))
	if r, _ := w.selectedRepo(); r.Unconfined != nil {
		t.Error("Cancel let the repository's agents run unconfined")
	}
}

// A new token's form starts from the least: reading status, on one
// repository, for 30 days; copying its secret says so.
func TestSettingsNewTokenDefaults(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	g.showSettings()
	w := g.settings
	w.addRepository(t.TempDir())
	w.createToken()
	top := w.win.Canvas().Overlays().Top()
	caps, _ := findIn(top, func(*widget.CheckGroup) bool { return true })
	if caps == nil || !slices.Equal(caps.Selected, []string{string(store.CapStatusRead)}) {
		t.Errorf("capabilities ticked at first: %v, want only %s", caps.Selected, store.CapStatusRead)
	}
	var selects []string
	findIn(top, func(s *widget.Select) bool { selects = append(selects, s.Selected); return false })
	if want := []string{w.repos[0].Name + " (" + w.repos[0].ID + ")", "30 days"}; !slices.Equal(selects, want) {
		t.Errorf("repository and expiry at first: %q, want %q", selects, want)
	}
	test.Tap(dialogButton(t, w.win, "Create"))
	copyBtn := dialogButton(t, w.win, "Copy")
	test.Tap(copyBtn)
	if copyBtn.Text != "Copied" || a.Clipboard().Content() == "" {
		t.Errorf("after Copy: the button reads %q, the clipboard holds %d bytes", copyBtn.Text, len(a.Clipboard().Content()))
	}
}

// A repository is renamed and removed from its row, after a question;
// its folder stays.
func TestSettingsRepositoryRenameRemove(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	g.showSettings()
	w := g.settings
	folder := t.TempDir()
	w.addRepository(folder)
	w.repoList.Select(0)
	test.Tap(w.repoRename)
	name, _ := findIn(w.win.Canvas().Overlays().Top(), func(*widget.Entry) bool { return true })
	name.SetText("service")
	test.Tap(dialogButton(t, w.win, "Rename"))
	if r, _ := w.selectedRepo(); r.Name != "service" {
		t.Fatalf("after Rename: %+v", r)
	}
	test.Tap(w.repoRemove)
	test.Tap(dialogButton(t, w.win, "Remove"))
	if len(w.repos) != 0 || !w.repoRemove.Disabled() {
		t.Errorf("after Remove: %d repositories, Remove enabled %v", len(w.repos), !w.repoRemove.Disabled())
	}
	if _, err := os.Stat(folder); err != nil {
		t.Errorf("the folder went with it: %v", err)
	}
}
