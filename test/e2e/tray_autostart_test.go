package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tray's "Start at login", clicked over D-Bus as a panel does: the real binary writes
// ~/.config/autostart/switchboard.desktop starting itself, the item shows checked, and a
// second click removes the entry and the check.
func TestTrayStartAtLogin(t *testing.T) {
	trayRequireDesktop(t)
	bin := buildBinary(t)
	exe, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "sbauto") // short: control.sock's path must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Mkdir(filepath.Join(base, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	// trayEnv drops XDG_CONFIG_HOME, so the entry goes under HOME/.config.
	entry := filepath.Join(base, "home", ".config", "autostart", "switchboard.desktop")
	p, _, menu := trayStartOnBus(t, bin, trayEnv(base), base)

	// toggle clicks the item until the entry is there (on) or gone (off), then waits for
	// the menu to show it: the tray reads the entry on its 2-second tick.
	toggle := func(on bool) {
		t.Helper()
		if !trayClickUntil(t, p, menu, func() bool { _, err := os.Stat(entry); return (err == nil) == on }, "Start at login") {
			t.Fatalf("start at login %v: the entry is not as asked", on)
		}
		var items []trayItem
		if !eventually(t, func() bool {
			items = trayMenuItems(t, menu)
			i := slices.IndexFunc(items, func(it trayItem) bool { return it.label == "Start at login" })
			return i >= 0 && items[i].checked == on
		}) {
			t.Fatalf("the tray item does not show start at login %v: %+v", on, items)
		}
	}

	items := trayMenuItems(t, menu)
	if i := slices.IndexFunc(items, func(it trayItem) bool { return it.label == "Start at login" }); i < 0 || items[i].checked {
		t.Fatalf("no unchecked Start at login in the tray: %+v", items)
	}
	toggle(true)
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nExec="+exe+"\n") {
		t.Errorf("the entry does not start %s:\n%s", exe, data)
	}
	if fi, err := os.Stat(entry); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the entry's mode: %v, %v", fi.Mode(), err)
	}
	if v, err := exec.LookPath("desktop-file-validate"); err == nil {
		if out, err := exec.Command(v, entry).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("desktop-file-validate: %v\n%s", err, out)
		}
	}
	toggle(false)

	if code := trayQuit(t, p, menu); code != 0 {
		t.Fatalf("exited %d after Quit, want 0", code)
	}
}
