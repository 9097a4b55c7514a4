//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
)

// The permission choice at the foot of Start agent, over D-Bus as a panel
// shows it: Ask checked at first; a click on Edits moves the check mark
// there, and a click on Full auto then moves it on (the app lays the
// menu out again and sends it to the panel).
func TestTrayPermissionOverDBus(t *testing.T) {
	trayRequireDesktop(t)
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "sbtray")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Mkdir(filepath.Join(base, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, _, menu := trayStartOnBus(t, bin, trayEnv(base), base)
	defer trayQuit(t, p, menu)
	const ask, edits, auto = "Permission: Ask", "Permission: Edits", "Permission: Full auto"
	want := func(checked string) {
		t.Helper()
		var got []string
		if !eventually(t, func() bool { got = trayChecked(t, menu, "Start agent"); return slices.Equal(got, []string{checked}) }) {
			t.Fatalf("Start agent's checked items %q, want %q", got, checked)
		}
	}
	want(ask)
	// Picked twice: each pick lays out the menu the panel shows, and a
	// click the app dropped is made again (trayClickUntil).
	for _, pick := range []string{edits, auto} {
		trayClickUntil(t, p, menu, func() bool { return slices.Equal(trayChecked(t, menu, "Start agent"), []string{pick}) }, "Start agent", pick)
		want(pick)
	}
}

// trayChecked is the labels of the checked items (dbusmenu toggle-state 1)
// in the submenu named label.
func trayChecked(t *testing.T, menu dbus.BusObject, label string) []string {
	t.Helper()
	call := menu.Call(trayMenuIface+".GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil || len(call.Body) != 2 {
		t.Fatalf("GetLayout: %v", call.Err)
	}
	var out []string
	var walk func(v any, inside bool)
	walk = func(v any, inside bool) {
		fields, ok := v.([]any)
		if !ok || len(fields) != 3 {
			return
		}
		props, _ := fields[1].(map[string]dbus.Variant)
		kids, _ := fields[2].([]dbus.Variant)
		l, _ := props["label"].Value().(string)
		if st, ok := props["toggle-state"].Value().(int32); ok && st == 1 && inside {
			out = append(out, l)
		}
		for _, k := range kids {
			walk(k.Value(), inside || l == label)
		}
	}
	walk(call.Body[1], false)
	return out
}
