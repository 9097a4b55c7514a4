package e2e

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestScreenshots runs the real app under the virtual display, starts a
// shell agent that prints in colour, opens every window from the tray over
// D-Bus, and takes a screenshot of each, in the dark and the light theme.
// With SWITCHBOARD_SCREENSHOTS_DIR set they are written there (that is how
// docs/screenshots is made); otherwise into a temporary folder. Each must
// show a window, not a blank screen.
func TestScreenshots(t *testing.T) {
	trayRequireDesktop(t)
	requireImport(t)
	out := os.Getenv("SWITCHBOARD_SCREENSHOTS_DIR")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"dark", "light"} {
		t.Run(variant, func(t *testing.T) { screenshots(t, variant, out) })
	}
}

func screenshots(t *testing.T, variant, out string) {
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "sbshot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	home := filepath.Join(base, "home")
	repo := filepath.Join(home, "demo-repo")
	if err := os.MkdirAll(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(trayEnv(base), "FYNE_THEME="+variant, "SHELL=/bin/bash", "PS1=demo$ ")
	p, _, menu := trayStartOnBus(t, bin, env, base)

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("switchboard %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(b))
	}
	repoID := run("repo", "add", repo, "--name", "demo-repo")
	run("work", "create", "--repo", repoID, "--title", "Add a --json flag to the status command", "--artifact", "patch:diff", "--priority", "2", "--instructions", "Print the status as JSON when --json is given.")
	run("work", "create", "--repo", repoID, "--title", "Fix the flaky lease test", "--instructions", "Find why it fails one run in fifty.")

	// Start a shell agent from the tray (Start agent ▸ Shell ▸ demo-repo): the
	// main window opens on it.
	// The tray re-reads repositories on its next refresh after a change.
	var shell trayItem
	if !eventually(t, func() bool {
		// The menu is rebuilt on each refresh: read between two rebuilds it
		// may not hold the submenu yet, so look again rather than index it.
		items := trayMenuItems(t, menu)
		shell = trayItem{}
		if i := slices.IndexFunc(items, func(it trayItem) bool { return it.label == "Start agent" }); i >= 0 {
			if j := slices.IndexFunc(items[i].children, func(it trayItem) bool { return it.label == "Shell" }); j >= 0 {
				shell = items[i].children[j]
			}
		}
		return len(shell.children) > 0 && strings.HasPrefix(shell.children[0].label, "demo-repo")
	}) {
		t.Fatalf("the tray's Start agent ▸ Shell never listed the repository: %+v", shell.children)
	}
	// One click: a second would start a second agent.
	trayClick(t, menu, shell.children, shell.children[0].label)
	var ses string
	waitUntil(t, "an agent started from the tray", func() bool {
		if rows := strings.Split(run("agent", "list"), "\n"); len(rows) > 1 {
			ses = strings.Fields(rows[1])[0]
		}
		return ses != ""
	})
	// The main window opens on it.
	waitUntil(t, "the main window", func() bool { return windowID(t, "Switchboard") != "" })
	attach := exec.Command(bin, "agent", "attach", ses)
	attach.Env = env
	attach.Stdin = strings.NewReader("clear; printf '\\033[1;32m✔\\033[0m build ok  \\033[33m3 warnings\\033[0m  \\033[1;31m✘ 1 test failed\\033[0m\\n'; ls -la --color=always /usr/share | head -20; echo 日本語 wide characters\r")
	attach.Run()
	// A sleep on purpose: nothing outside the app says when the terminal
	// widget has painted what the attach typed, and this is a picture for
	// people, not a check (the window painting at all is checked by shot).
	time.Sleep(time.Second)
	shot(t, "Switchboard", filepath.Join(out, "sessions-"+variant+".png"))

	for _, w := range []struct{ label, title, file string }{
		{"Work board…", "Switchboard", "work"}, {"Audit…", "Switchboard — Audit", "audit"}, {"Settings…", "Switchboard — Settings", "settings"},
	} {
		if !trayClickUntil(t, p, menu, func() bool { return windowID(t, w.title) != "" }, w.label) {
			t.Fatalf("no %s window", w.title)
		}
		// A sleep on purpose: a window's content comes in after it first
		// paints (the packets, the audit log's rows, the settings'
		// checks), and nothing outside the app says when it is whole; a
		// picture for people waits for it, as a person would.
		time.Sleep(2 * time.Second)
		shot(t, w.title, filepath.Join(out, w.file+"-"+variant+".png"))
	}
	trayQuit(t, p, menu)

	// The windows still open at Quit are remembered as it quits: their
	// sizes are in the preferences the app wrote on its way out, which
	// Fyne keeps under the app's id (app.AppID).
	b, err := os.ReadFile(filepath.Join(home, ".config", "fyne", "dev.switchboard.app", "preferences.json"))
	if err != nil {
		t.Fatalf("the app left no preferences: %v", err)
	}
	var prefs map[string]any
	if err := json.Unmarshal(b, &prefs); err != nil {
		t.Fatalf("preferences: %v", err)
	}
	for _, kind := range []string{"sessions", "audit", "settings"} {
		if w, ok := prefs["window."+kind+".width"].(float64); !ok || w <= 0 {
			t.Errorf("no width remembered for the %s window: %v", kind, prefs["window."+kind+".width"])
		}
	}
}

// shot saves the window titled title to path and checks it shows something:
// a blank or nearly one-colour image means the window did not paint. (The
// whole screen would show the windows opened before around a smaller one:
// there is no window manager to place them.) A window that was just mapped
// may not have painted yet, the later on a loaded machine: nothing tells an
// outside program when it has, so it is taken again until it shows
// something.
func shot(t *testing.T, title, path string) {
	t.Helper()
	n := 0
	if !eventually(t, func() bool {
		if id := windowID(t, title); id != "" {
			n = shotOnce(t, id, path)
		}
		return n >= 16
	}) {
		t.Errorf("%s has %d colours: nothing painted", filepath.Base(path), n)
	}
}

// windowID is the X id of the window titled title, "" while there is none.
func windowID(t *testing.T, title string) string {
	t.Helper()
	tree, err := exec.Command("xwininfo", "-root", "-tree").CombinedOutput()
	if err != nil {
		t.Fatalf("xwininfo: %v\n%s", err, tree)
	}
	for _, line := range strings.Split(string(tree), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.Contains(line, `"`+title+`"`) {
			return f[0]
		}
	}
	return ""
}

// shotOnce screenshots the window id into path and returns how many colours
// it has.
func shotOnce(t *testing.T, id, path string) int {
	t.Helper()
	if out, err := exec.Command("import", "-window", id, path).CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return colours(img)
}

func colours(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[r>>11<<10|g>>11<<5|bl>>11] = true
		}
	}
	return len(seen)
}
