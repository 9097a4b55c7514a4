package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// autostart on writes an entry starting this very binary, status reads it,
// off removes it; an entry the person wrote is left alone unless --force.
func TestAutostartCLI(t *testing.T) {
	h := newHarness(t)
	cfg := t.TempDir()
	h.env["XDG_CONFIG_HOME"] = cfg
	entry := filepath.Join(cfg, "autostart", "switchboard.desktop")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}

	type status struct {
		On          bool   `json:"on"`
		Path        string `json:"path"`
		Ours        bool   `json:"ours"`
		Exec        string `json:"exec"`
		ExecMissing bool   `json:"exec_missing"`
	}
	var st status
	h.jsonOut(&st, "autostart", "status", "--json")
	if st.On || st.Path != entry {
		t.Fatalf("off by default, at %s: %+v", entry, st)
	}
	if r := h.ok("autostart"); !strings.Contains(r.stdout, "autostart: off") || !strings.Contains(r.stdout, entry+" (none)") {
		t.Errorf("status:\n%s", r.stdout)
	}

	if r := h.ok("autostart", "on"); !strings.Contains(r.stdout, "autostart: on") || !strings.Contains(r.stdout, "starts:    "+exe) {
		t.Errorf("on:\n%s", r.stdout)
	}
	b, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(b), "\nExec="+exe+"\n") {
		t.Fatalf("entry (%v):\n%s", err, b)
	}
	h.jsonOut(&st, "autostart", "status", "--json")
	if !st.On || !st.Ours || st.Exec != exe || st.ExecMissing {
		t.Errorf("status after on: %+v", st)
	}

	// The binary it names goes away: status says so.
	moved := strings.Replace(string(b), "Exec="+exe, "Exec=/gone/switchboard", 1)
	moved = strings.Replace(moved, "TryExec="+exe, "TryExec=/gone/switchboard", 1)
	if err := os.WriteFile(entry, []byte(moved), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.ok("autostart", "status"); !strings.Contains(r.stdout, "no longer exists") {
		t.Errorf("status of an entry whose binary is gone:\n%s", r.stdout)
	}

	h.ok("autostart", "off")
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("off left the entry: %v", err)
	}

	// Someone else's entry.
	mine := "[Desktop Entry]\nType=Application\nName=Mine\nExec=/usr/bin/switchboard --headless\n"
	if err := os.WriteFile(entry, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"on", "off"} {
		r := h.fails(1, "autostart", sub)
		if !strings.Contains(r.stderr, "not written by Switchboard") || !strings.Contains(r.stderr, entry) {
			t.Errorf("%s over someone else's entry:\n%v", sub, r)
		}
		if b, _ := os.ReadFile(entry); string(b) != mine {
			t.Fatalf("%s changed someone else's entry:\n%s", sub, b)
		}
	}
	if r := h.ok("autostart", "status"); !strings.Contains(r.stdout, "(not written by Switchboard)") {
		t.Errorf("status of someone else's entry:\n%s", r.stdout)
	}
	h.ok("autostart", "on", "--force")
	h.jsonOut(&st, "autostart", "status", "--json")
	if !st.On || !st.Ours {
		t.Errorf("on --force: %+v", st)
	}

	h.fails(2, "autostart", "sideways")
	h.fails(2, "autostart", "on", "extra")
	var raw map[string]any
	h.jsonOut(&raw, "autostart", "--json")
	if _, err := json.Marshal(raw); err != nil || raw["path"] != entry {
		t.Errorf("autostart --json: %v", raw)
	}
}
