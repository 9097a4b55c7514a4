//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real binary on a desktop with no tray host (as stock GNOME): its
// window is there at first run, and launching it again while it runs brings
// that window forward and exits 0 at once, instead of printing "already
// running" where a menu launch shows nobody.
func TestWindowAtFirstRunAndSecondLaunch(t *testing.T) {
	trayRequireDesktop(t)
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "sbwin") // short: control.sock's path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Mkdir(filepath.Join(base, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := trayEnv(base)
	p, _, menu := trayStartOnBus(t, bin, env, base)
	const title = "Switchboard"
	waitUntil(t, "the window at first run without a tray host", func() bool { return windowListed(t, title) })

	second := exec.Command(bin)
	second.Env = env
	begin := time.Now()
	out, err := second.CombinedOutput()
	took := time.Since(begin)
	t.Logf("figure: a second launch showed the window and exited in %v", took.Round(time.Millisecond))
	if err != nil || !strings.Contains(string(out), "its window is in front") {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	p.mustRun(t, "after a second launch")
	// Quit from the menu is not held up by the window's question on close.
	if code := trayQuit(t, p, menu); code != 0 {
		t.Errorf("Quit exited %d", code)
	}
}

// windowListed reports whether X has a window titled title.
func windowListed(t *testing.T, title string) bool {
	t.Helper()
	tree, err := exec.Command("xwininfo", "-root", "-tree").CombinedOutput()
	if err != nil {
		t.Fatalf("xwininfo: %v\n%s", err, tree)
	}
	return strings.Contains(string(tree), `"`+title+`"`)
}
