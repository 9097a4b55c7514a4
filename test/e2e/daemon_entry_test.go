package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDaemonEntryWithoutTray runs cmd/switchboard-daemon, the build without
// Fyne or cgo that is the macOS binary, here on Linux: with a display and a
// session bus in its environment it still runs headless (it has no tray),
// serves the CLI of its own binary, and ends cleanly on SIGTERM.
func TestDaemonEntryWithoutTray(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "switchboard-daemon")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/switchboard-daemon")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build switchboard-daemon: %v\n%s", err, out)
	}
	d := newDirs(t)
	env := d.env(true, "DISPLAY=:99")
	p := startBin(t, bin, env)
	ep := waitEndpoint(t, p, d, 15*time.Second)
	status := exec.Command(bin, "status")
	status.Env = env
	out, err := status.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "running") || !strings.Contains(string(out), ep) {
		t.Errorf("switchboard-daemon status: %v\n%s", err, out)
	}
	p.stop()
	// Read once it has exited, when all it printed is in.
	// "Running headless" is the startup line of a run that never tries a
	// tray; the tray app here would try, fail (no tray host) and say so.
	if out := p.Output(); !strings.Contains(out, "Running headless") || strings.Contains(out, "No system tray") || !strings.Contains(out, ep) {
		t.Errorf("startup lines are not those of a run without a tray, or lack the endpoint %s:\n%s", ep, out)
	}
}
