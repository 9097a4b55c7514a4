package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/autostart"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func TestSettingsWindow(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	item(t, testMenuOf(g), labelSettings).Action()
	w := g.settings
	if w == nil {
		t.Fatal("Settings… opened no window")
	}

	// A folder from the picker becomes a repository.
	dir := t.TempDir()
	w.addRepository(dir)
	if len(w.repos) != 1 || w.repos[0].Path != dir || !strings.Contains(w.status.Text, "Registered") {
		t.Fatalf("after adding a folder: %+v, status %q", w.repos, w.status.Text)
	}
	w.addRepository(dir)
	if len(w.repos) != 1 || !strings.Contains(w.status.Text, "already") {
		t.Errorf("adding it twice: %d repositories, status %q", len(w.repos), w.status.Text)
	}

	// Profiles: the built-ins are listed; a built-in cannot be removed, an
	// edit of one can (and the built-in comes back).
	if len(w.profiles) < 5 {
		t.Fatalf("profiles %+v", w.profiles)
	}
	w.profileList.Select(0)
	test.Tap(findButton(t, w.win, labelRemoveProfile))
	if !strings.Contains(w.status.Text, "built in") {
		t.Errorf("removing a built-in: status %q", w.status.Text)
	}
	edited := w.profiles[0].Profile
	edited.Args = append(edited.Args, "--verbose")
	if _, err := invoke(g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: edited}); err != nil {
		t.Fatal(err)
	}
	w.reload()
	if !w.profiles[0].Edited {
		t.Fatalf("the edit does not show: %+v", w.profiles[0])
	}
	w.profileList.Select(0)
	test.Tap(findButton(t, w.win, labelRemoveProfile))
	if w.profiles[0].Edited {
		t.Errorf("removing the edit did not bring the built-in back")
	}

	// Tokens: a new one shows in the list; the secret dialog offers a copy.
	created, err := invoke(g, mcpserver.MethodTokenCreate, mcpserver.TokenCreateArgs{Label: "ci", Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{store.AllRepositories}}}})
	if err != nil {
		t.Fatal(err)
	}
	w.reload()
	found := false
	for _, tok := range w.tokens.Tokens {
		found = found || tok.KeyID == created.Token.KeyID
	}
	if !found {
		t.Errorf("new token not listed")
	}
	w.win.Close()
	if g.settings != nil {
		t.Error("closed window still referenced")
	}
}

// testMenuOf is g's tray menu now.
func testMenuOf(g *gui) *fyne.Menu { return g.trayMenu(g.menuModel()) }

// findButton finds the button labelled label in w's content.
func findButton(t *testing.T, w fyne.Window, label string) *widget.Button {
	t.Helper()
	var found *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Button:
			if v.Text == label && found == nil {
				found = v
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case *container.AppTabs:
			for _, ti := range v.Items {
				walk(ti.Content)
			}
		case *container.Scroll:
			walk(v.Content)
		}
	}
	walk(w.Content())
	if found == nil {
		t.Fatalf("no button %q", label)
	}
	return found
}

// The Connection tab as it renders, in both themes: a golden image, looked
// at when it changes (testdata/settings/).
func TestSettingsConnectionRenders(t *testing.T) {
	for _, variant := range []struct {
		name  string
		theme fyne.Theme
	}{{"dark", theme.DarkTheme()}, {"light", theme.LightTheme()}} {
		t.Run(variant.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			a.Settings().SetTheme(variant.theme)
			log, _ := newTestLogger()
			g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
			// Start at login, off: a config folder that is not there (nothing is written).
			g.startup = startupConfig{
				env:        autostart.Env{Getenv: func(k string) string { return map[string]string{"HOME": "/home/ada"}[k] }},
				executable: func() (string, error) { return "/home/ada/.local/bin/switchboard", nil },
			}
			g.showSettings()
			w := g.settings
			w.win.Resize(fyne.NewSize(820, 520))
			tabs := w.tabs
			tabs.SelectIndex(settingsTabConnection)
			test.AssertImageMatches(t, "settings/connection-"+variant.name+".png", w.win.Canvas().Capture())
			w.win.Close()
		})
	}
}

// The Connection tab saves the listen address and the origins through
// connection.put, shows them as stored, and shows a refusal with its code.
func TestSettingsConnectionSaves(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	g.showSettings()
	w := g.settings
	defer w.win.Close()
	tabs := w.tabs
	tabs.SelectIndex(settingsTabConnection)
	var entries []*widget.Entry
	var status *widget.Label
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Entry:
			entries = append(entries, v)
		case *widget.Label:
			if strings.HasPrefix(v.Text, "Saved") || strings.HasPrefix(v.Text, "Refused") {
				status = v
			}
		case *widget.Form:
			for _, it := range v.Items {
				walk(it.Widget)
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(v.Content)
		}
	}
	find := func() {
		entries, status = nil, nil
		walk(tabs.Items[settingsTabConnection].Content)
		if len(entries) != 2 {
			t.Fatalf("%d entries in the Connection tab, want the address and the origins", len(entries))
		}
	}
	find()
	addr, origins := entries[0], entries[1]
	save := findButton(t, w.win, labelSaveConnection)

	addr.SetText(" 8765 ")
	origins.SetText("HTTPS://Tools.Example/\n\nhttp://localhost:3000")
	test.Tap(save)
	got, err := invoke(g, mcpserver.MethodConnectionGet, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ListenAddr != "8765" || !slices.Equal(got.AllowOrigins, []string{"https://tools.example", "http://localhost:3000"}) {
		t.Errorf("saved %+v", got)
	}
	find()
	if addr.Text != "8765" || origins.Text != "https://tools.example\nhttp://localhost:3000" || status == nil || !status.Visible() {
		t.Errorf("after saving: address %q, origins %q, status %v", addr.Text, origins.Text, status)
	}

	addr.SetText("0.0.0.0:8765")
	test.Tap(save)
	find()
	if status == nil || !strings.Contains(status.Text, "Refused (invalid_argument)") {
		t.Errorf("a non-loopback address: status %v, want the refusal", status)
	}
	if got, err := invoke(g, mcpserver.MethodConnectionGet, mcpserver.NoArgs{}); err != nil || got.ListenAddr != "8765" {
		t.Errorf("a refused save changed the settings: %+v, %v", got, err)
	}
}
