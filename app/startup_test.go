package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/autostart"
)

// The autostart entry names the icon make install installs, which is the app id.
func TestStartupIconIsAppID(t *testing.T) {
	if autostart.IconName != AppID {
		t.Errorf("autostart.IconName %q, AppID %q", autostart.IconName, AppID)
	}
}

// startupFixture is a temporary config folder and an installed-looking binary, given to a
// test GUI.
type startupFixture struct {
	entry string // the autostart entry's path
	exe   string
}

func withStartup(t *testing.T, g *gui) startupFixture {
	t.Helper()
	root := t.TempDir()
	exe := filepath.Join(root, "bin", "switchboard")
	if err := os.MkdirAll(filepath.Dir(exe), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "config")
	g.startup = startupConfig{
		env:        autostart.Env{Getenv: func(k string) string { return map[string]string{"XDG_CONFIG_HOME": cfg}[k] }},
		executable: func() (string, error) { return exe, nil },
	}
	return startupFixture{entry: filepath.Join(cfg, "autostart", autostart.FileName), exe: exe}
}

func (f startupFixture) content(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(f.entry)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f startupFixture) write(t *testing.T, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.entry), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.entry, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const someoneElsesEntry = "[Desktop Entry]\nType=Application\nName=Mine\nExec=/opt/sb/switchboard --headless\n"

// Settings ▸ Connection: the check writes and removes the entry; someone else's entry is
// replaced or removed only after the person confirms; a failure is shown in a dialog and
// the check shows the file as it is.
func TestSettingsStartAtLogin(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	f := withStartup(t, g)
	g.showSettings()
	w := g.settings
	defer w.win.Close()
	w.tabs.SelectIndex(settingsTabConnection)
	p := w.startup
	shown := func() bool {
		_, ok := findIn(w.tabs.Items[settingsTabConnection].Content, func(c *widget.Check) bool { return c == p.check })
		return ok
	}
	if !shown() {
		t.Fatal("the check is not on the Connection tab")
	}
	if p.check.Checked || p.check.Disabled() || !strings.Contains(p.note.Text, f.entry) {
		t.Fatalf("off by default, saying where: checked %v, disabled %v, note %q", p.check.Checked, p.check.Disabled(), p.note.Text)
	}

	test.Tap(p.check)
	if got := f.content(t); !strings.Contains(got, "\nExec="+f.exe+"\n") {
		t.Fatalf("on wrote:\n%s", got)
	}
	if !p.check.Checked || !strings.Contains(p.note.Text, "Starts "+f.exe) {
		t.Errorf("after on: checked %v, note %q", p.check.Checked, p.note.Text)
	}
	test.Tap(p.check)
	if f.content(t) != "" || p.check.Checked {
		t.Fatalf("off left the entry (checked %v)", p.check.Checked)
	}

	// Someone else's entry: turning off asks, Cancel keeps it, Remove it removes it.
	f.write(t, someoneElsesEntry)
	p.load()
	if !p.check.Checked || !strings.Contains(p.note.Text, "not written by Switchboard") {
		t.Fatalf("someone else's entry: checked %v, note %q", p.check.Checked, p.note.Text)
	}
	test.Tap(p.check)
	test.Tap(dialogButton(t, w.win, "Cancel"))
	if f.content(t) != someoneElsesEntry || !p.check.Checked {
		t.Fatalf("Cancel changed someone else's entry (checked %v):\n%s", p.check.Checked, f.content(t))
	}
	test.Tap(p.check)
	if _, ok := findIn(w.win.Canvas().Overlays().Top(), func(l *widget.Label) bool {
		return strings.Contains(l.Text, f.entry) && strings.Contains(l.Text, "not written by Switchboard")
	}); !ok {
		t.Error("the question does not say which entry, and whose")
	}
	test.Tap(dialogButton(t, w.win, labelRemoveEntry))
	if f.content(t) != "" || p.check.Checked {
		t.Fatalf("Remove it kept the entry (checked %v)", p.check.Checked)
	}

	// Someone else's entry switched off (Hidden): turning on asks to replace it.
	f.write(t, someoneElsesEntry+"Hidden=true\n")
	p.load()
	if p.check.Checked {
		t.Error("a hidden entry shows as on")
	}
	test.Tap(p.check)
	test.Tap(dialogButton(t, w.win, labelReplaceEntry))
	if st, err := g.startupEnv().Status(); err != nil || !st.Ours || !st.Enabled || !p.check.Checked {
		t.Fatalf("Replace it: %+v, %v (checked %v)", st, err, p.check.Checked)
	}
	test.Tap(p.check)

	// The folder cannot be made: an error dialog, and the check stays off.
	dir := filepath.Dir(f.entry)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("a file where the autostart folder should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.load()
	test.Tap(p.check)
	if _, ok := findIn(w.win.Canvas().Overlays().Top(), func(l *widget.Label) bool {
		return strings.Contains(strings.ToLower(l.Text), "turn autostart on: create the autostart folder")
	}); !ok {
		t.Error("no dialog says why start at login failed")
	}
	if p.check.Checked {
		t.Error("the check is on though nothing was written")
	}
}

// A GUI with no environment to place the entry in shows why, and cannot be toggled.
func TestSettingsStartAtLoginUnplaced(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	g.showSettings()
	defer g.settings.win.Close()
	p := g.settings.startup
	if !p.check.Disabled() || !strings.Contains(p.note.Text, "HOME") {
		t.Errorf("disabled %v, note %q", p.check.Disabled(), p.note.Text)
	}
	if it := item(t, g.trayMenu(g.menuModel()), labelStartAtLogin); it.Checked {
		t.Error("the tray says on")
	}
}

// The tray's checked "Start at login": on, checked on the next menu, off; someone else's
// entry is left alone and a notification says so; Settings, when open, follows at once.
func TestTrayStartAtLogin(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	f := withStartup(t, g)
	menuItem := func() *fyne.MenuItem { return item(t, g.trayMenu(g.menuModel()), labelStartAtLogin) }

	it := menuItem()
	if it.Checked {
		t.Fatal("checked by default")
	}
	g.showSettings()
	defer g.settings.win.Close()
	it.Action()
	if !strings.Contains(f.content(t), "\nExec="+f.exe+"\n") {
		t.Fatalf("on wrote:\n%s", f.content(t))
	}
	if !g.settings.startup.check.Checked {
		t.Error("Settings did not follow the tray")
	}
	it = menuItem()
	if !it.Checked {
		t.Fatal("not checked after on")
	}
	it.Action()
	if f.content(t) != "" || menuItem().Checked || g.settings.startup.check.Checked {
		t.Fatal("off: the entry is still there, or shown as on")
	}

	f.write(t, someoneElsesEntry)
	it = menuItem()
	if !it.Checked {
		t.Fatal("someone else's entry starts Switchboard too: checked")
	}
	test.AssertNotificationSent(t, fyne.NewNotification("Switchboard: start at login unchanged",
		autostart.ErrNotOurs.Error()+": "+f.entry+" left as it is (remove it yourself, or use --force). Settings ▸ Connection can replace it."),
		it.Action)
	if f.content(t) != someoneElsesEntry {
		t.Errorf("the tray changed someone else's entry:\n%s", f.content(t))
	}

	// What the tray shows follows the file, so `switchboard autostart` in a terminal shows.
	before := g.menuModel()
	if err := os.Remove(f.entry); err != nil {
		t.Fatal(err)
	}
	if after := g.menuModel(); after.equal(before) {
		t.Error("the tray model does not change when the entry goes")
	}
}

func TestStartupNote(t *testing.T) {
	const path = "/home/ada/.config/autostart/switchboard.desktop"
	const exe = "/home/ada/.local/bin/switchboard"
	for _, tc := range []struct {
		name string
		st   autostart.State
		exe  string
		want []string // parts the note holds
		not  []string
	}{
		{"none", autostart.State{Path: path}, exe, []string{"Turning it on writes " + path}, []string{"no longer"}},
		{"ours", autostart.State{Path: path, Exists: true, Ours: true, Enabled: true, Exec: exe}, exe, []string{"Starts " + exe}, []string{"runs from"}},
		{"ours, another binary", autostart.State{Path: path, Exists: true, Ours: true, Enabled: true, Exec: "/opt/switchboard"}, exe,
			[]string{"Starts /opt/switchboard", "This Switchboard runs from " + exe}, nil},
		{"ours, binary gone", autostart.State{Path: path, Exists: true, Ours: true, Enabled: true, Exec: "/gone", ExecMissing: true}, exe,
			[]string{"no longer exists: turn it off and on again"}, []string{"runs from"}},
		{"theirs, binary gone", autostart.State{Path: path, Exists: true, Enabled: true, Exec: "/gone", ExecMissing: true}, exe,
			[]string{"not written by Switchboard", "no longer exists."}, []string{"turn it off"}},
		{"edited and hidden", autostart.State{Path: path, Exists: true, Ours: true, Edited: true, Exec: exe}, exe,
			[]string{"edited by hand", "switched off"}, nil},
		{"go run", autostart.State{Path: path}, "/tmp/go-build123/b001/exe/switchboard", []string{"temporary build"}, nil},
	} {
		note := startupNote(tc.st, tc.exe)
		for _, w := range tc.want {
			if !strings.Contains(note, w) {
				t.Errorf("%s: %q lacks %q", tc.name, note, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(note, w) {
				t.Errorf("%s: %q says %q", tc.name, note, w)
			}
		}
	}
}
