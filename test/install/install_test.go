// Package install tests the Makefile's install, uninstall and package
// targets by running them: make builds the real binary (as `make build`
// does, so after test/e2e it only links, if that), installs it into a
// temporary PREFIX, and the tests look at what landed there with the tools
// a desktop and dpkg use.
//
// The tests run one after another: every make target writes bin/.
package install

import (
	"bufio"
	"bytes"
	"debug/elf"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const appID = "dev.switchboard.app"

var iconSizes = []int{16, 22, 24, 32, 48, 64, 128, 256}

// root is the module root, where the Makefile is.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runMake runs make target with vars in the module root; it fails the
// test unless make's exit status is 0 (wantOK) or not.
func runMake(t *testing.T, wantOK bool, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = root(t)
	out, err := cmd.CombinedOutput()
	if (err == nil) != wantOK {
		t.Fatalf("make %s: %v (want success: %v)\n%s", strings.Join(args, " "), err, wantOK, out)
	}
	return string(out)
}

// installed is what make install puts under prefix, relative to it, with
// each file's mode.
func installed() map[string]fs.FileMode {
	want := map[string]fs.FileMode{
		"bin/switchboard":                          0o755,
		"bin/switchboard-sandbox":                  0o755,
		"share/applications/" + appID + ".desktop": 0o644,
	}
	for _, s := range iconSizes {
		want[filepath.Join("share/icons/hicolor", strconv.Itoa(s)+"x"+strconv.Itoa(s), "apps", appID+".png")] = 0o644
	}
	return want
}

// files lists the regular files under dir (relative) with their modes,
// failing on anything that is neither a file nor a folder.
func files(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case fi.IsDir():
			if perm := fi.Mode().Perm(); perm != 0o755 && rel != "." {
				t.Errorf("folder %s is %v, want 0755", rel, perm)
			}
		case fi.Mode().IsRegular():
			got[rel] = fi.Mode().Perm()
		default:
			t.Errorf("%s is a %v", rel, fi.Mode().Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameFiles(t *testing.T, what string, got, want map[string]fs.FileMode) {
	t.Helper()
	for name, mode := range want {
		if m, ok := got[name]; !ok {
			t.Errorf("%s: %s missing", what, name)
		} else if m != mode {
			t.Errorf("%s: %s is %v, want %v", what, name, m, mode)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s should not be there", what, name)
		}
	}
}

// validate runs desktop-file-validate, which prints nothing for an entry
// without errors or warnings.
func validate(t *testing.T, path string) {
	t.Helper()
	validator, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate not found: run scripts/deps.sh test (it installs desktop-file-utils)")
	}
	if out, err := exec.Command(validator, path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
}

// keys reads the [Desktop Entry] group's keys.
func keys(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			kv[k] = v
		}
	}
	return kv
}

// checkTree looks at an installed tree: the binary is the one make build
// made and runs, the menu entry is valid and starts the binary at its
// installed path exec, and every icon is a PNG of its folder's size.
func checkTree(t *testing.T, base, exec string) {
	t.Helper()
	built, err := os.ReadFile(filepath.Join(root(t), "bin", "switchboard"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "bin", "switchboard")
	got, err := os.ReadFile(bin)
	if err != nil || !bytes.Equal(got, built) {
		t.Errorf("%s is not bin/switchboard (%v)", bin, err)
	}
	desktop := filepath.Join(base, "share", "applications", appID+".desktop")
	validate(t, desktop)
	kv := keys(t, desktop)
	for k, want := range map[string]string{"Exec": exec, "TryExec": exec, "Icon": appID, "Categories": "Development;", "Type": "Application"} {
		if kv[k] != want {
			t.Errorf("%s: %s=%q, want %q", desktop, k, kv[k], want)
		}
	}
	for _, s := range iconSizes {
		path := filepath.Join(base, "share", "icons", "hicolor", strconv.Itoa(s)+"x"+strconv.Itoa(s), "apps", appID+".png")
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != s || cfg.Height != s {
			t.Errorf("%s: %dx%d, %v", path, cfg.Width, cfg.Height, err)
		}
	}
}

// make install into an empty PREFIX beside other applications' files, then
// make uninstall: ours there and valid, then gone, theirs untouched.
func TestInstallUninstall(t *testing.T) {
	prefix := t.TempDir()
	theirs := map[string]fs.FileMode{
		"bin/other":                                  0o755,
		"share/applications/other.desktop":           0o644,
		"share/icons/hicolor/48x48/apps/other.png":   0o644,
		"share/icons/hicolor/256x256/apps/other.png": 0o644,
	}
	for name, mode := range theirs {
		path := filepath.Join(prefix, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("not Switchboard's"), mode); err != nil {
			t.Fatal(err)
		}
	}
	runMake(t, true, "install", "PREFIX="+prefix)
	want := installed()
	for name, mode := range theirs {
		want[name] = mode
	}
	sameFiles(t, "after install", files(t, prefix), want)
	bin := filepath.Join(prefix, "bin", "switchboard")
	checkTree(t, prefix, bin)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !regexp.MustCompile(`^switchboard \d+\.\d+\.\d+\n$`).Match(out) {
		t.Errorf("%s --version: %v\n%s", bin, err, out)
	}

	// Installing again over the same files is fine.
	runMake(t, true, "install", "PREFIX="+prefix)

	runMake(t, true, "uninstall", "PREFIX="+prefix)
	sameFiles(t, "after uninstall", files(t, prefix), theirs)
	// Nothing there to remove is no error either.
	runMake(t, true, "uninstall", "PREFIX="+prefix)
}

// DESTDIR stages the tree (what the .deb is built from): files under
// DESTDIR, the paths inside them PREFIX's.
func TestInstallDestdir(t *testing.T) {
	dest := t.TempDir()
	runMake(t, true, "install", "DESTDIR="+dest, "PREFIX=/usr")
	want := map[string]fs.FileMode{}
	for name, mode := range installed() {
		want[filepath.Join("usr", name)] = mode
	}
	sameFiles(t, "staged", files(t, dest), want)
	checkTree(t, filepath.Join(dest, "usr"), "/usr/bin/switchboard")
	runMake(t, true, "uninstall", "DESTDIR="+dest, "PREFIX=/usr")
	sameFiles(t, "staged, uninstalled", files(t, dest), nil)
}

// A PREFIX that would make a broken Exec line, or land in the current
// folder, is refused before anything is written.
func TestInstallRefusesPrefix(t *testing.T) {
	parent := t.TempDir()
	for _, prefix := range []string{"relative/prefix", filepath.Join(parent, "with space"), filepath.Join(parent, "semi;colon"), filepath.Join(parent, "~tilde")} {
		out := runMake(t, false, "install", "PREFIX="+prefix)
		if !strings.Contains(out, "PREFIX") {
			t.Errorf("PREFIX=%s: the refusal does not say why:\n%s", prefix, out)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a refused install wrote %v", entries)
	}
	if _, err := os.Stat(filepath.Join(root(t), "relative")); err == nil {
		t.Error("a relative PREFIX was installed into")
	}
}

// The .deb holds the staged tree owned by root, its control file names
// the version and a package for every library the binary links, and its
// menu entry is valid.
func TestPackageDeb(t *testing.T) {
	dist := t.TempDir()
	// The fastest xz: what is in the package is the point here, not its size.
	runMake(t, true, "package-deb", "DIST="+dist, "DEBFLAGS=-z0")
	version := fyneVersion(t)
	arch := output(t, "dpkg", "--print-architecture")
	deb := filepath.Join(dist, "switchboard_"+version+"_"+arch+".deb")
	if entries, _ := os.ReadDir(dist); len(entries) != 1 {
		t.Errorf("DIST holds %v, want only the .deb (the staging folder removed)", entries)
	}

	for field, want := range map[string]string{"Package": "switchboard", "Version": version, "Architecture": arch} {
		if got := output(t, "dpkg-deb", "--field", deb, field); got != want {
			t.Errorf("%s: %s", field, got)
		}
	}
	depends := packages(output(t, "dpkg-deb", "--field", deb, "Depends"))
	lib, err := elf.Open(filepath.Join(root(t), "bin", "switchboard"))
	if err != nil {
		t.Fatal(err)
	}
	needed, err := lib.ImportedLibraries()
	lib.Close()
	if err != nil || len(needed) == 0 {
		t.Fatalf("the binary's libraries: %v, %v", needed, err)
	}
	for _, so := range needed {
		owners := owningPackages(t, so)
		if !slices.ContainsFunc(owners, func(p string) bool { return slices.Contains(depends, p) }) {
			t.Errorf("the binary links %s, of package %v, which Depends (%v) does not name", so, owners, depends)
		}
	}
	for _, rec := range []string{"gnome-keyring", "dbus-user-session"} {
		if !slices.Contains(packages(output(t, "dpkg-deb", "--field", deb, "Recommends")), rec) {
			t.Errorf("Recommends lacks %s", rec)
		}
	}

	// --contents: "-rwxr-xr-x root/root 46560968 2026-12-04 17:51 ./usr/bin/switchboard"
	want := map[string]fs.FileMode{}
	for name, mode := range installed() {
		want[filepath.Join("usr", name)] = mode
	}
	got := map[string]fs.FileMode{}
	for _, line := range strings.Split(output(t, "dpkg-deb", "--contents", deb), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("contents line %q", line)
		}
		if f[1] != "root/root" {
			t.Errorf("%s is owned by %s", f[5], f[1])
		}
		if f[0][0] == '-' {
			got[strings.TrimPrefix(f[5], "./")] = modeOf(f[0])
		}
	}
	sameFiles(t, "the .deb", got, want)

	tree := t.TempDir()
	output(t, "dpkg-deb", "-x", deb, tree)
	checkTree(t, filepath.Join(tree, "usr"), "/usr/bin/switchboard")

	// What `sudo apt install ./switchboard_….deb` would do, simulated (nothing installed):
	// its Depends name packages apt can satisfy here (the build machine has them all).
	if out, err := exec.Command("apt-get", "install", "--simulate", "--no-install-recommends", deb).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "Inst switchboard ") {
		t.Errorf("apt-get install --simulate %s: %v\n%s", deb, err, out)
	}
}

// make package-archive: fyne package's tar.xz, with its Makefile, a valid
// menu entry and the binary; FyneApp.toml is not changed by it (fyne
// package counts its Build up in the copy it is given).
func TestPackageArchive(t *testing.T) {
	toml := filepath.Join(root(t), "FyneApp.toml")
	before, err := os.ReadFile(toml)
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	// tar -J runs xz, which reads XZ_OPT: the fastest level, as above.
	t.Setenv("XZ_OPT", "-0")
	runMake(t, true, "package-archive", "DIST="+dist)
	if after, _ := os.ReadFile(toml); !bytes.Equal(after, before) {
		t.Errorf("make package-archive changed FyneApp.toml:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(root(t), "Switchboard.tar.xz")); err == nil {
		t.Error("Switchboard.tar.xz left in the module root")
	}
	archive := filepath.Join(dist, "switchboard_"+fyneVersion(t)+"_linux_"+output(t, "dpkg", "--print-architecture")+".tar.xz")
	tree := t.TempDir()
	output(t, "tar", "-xJf", archive, "-C", tree)
	top := filepath.Join(tree, "switchboard")
	sameFiles(t, "the archive", files(t, top), map[string]fs.FileMode{
		"Makefile":                  0o644,
		"usr/local/bin/switchboard": 0o755,
		"usr/local/share/applications/" + appID + ".desktop": 0o644,
		"usr/local/share/pixmaps/" + appID + ".png":          0o644,
	})
	desktop := filepath.Join(top, "usr/local/share/applications", appID+".desktop")
	validate(t, desktop)
	if kv := keys(t, desktop); kv["Categories"] != "Development;" || kv["Icon"] != appID {
		t.Errorf("the archive's menu entry: %v", kv)
	}

	// What the README tells people to run in the unpacked folder.
	dest := t.TempDir()
	if out, err := exec.Command("make", "-C", top, "install", "DESTDIR="+dest, "PREFIX=/usr/local").CombinedOutput(); err != nil {
		t.Fatalf("the archive's make install: %v\n%s", err, out)
	}
	if got := files(t, dest); len(got) != 3 || got["usr/local/bin/switchboard"] != 0o755 {
		t.Errorf("the archive's make install: %v", got)
	}
}

// fyneVersion is FyneApp.toml's Version, which names the packages.
func fyneVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "FyneApp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*Version = "([^"]+)"`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no Version in FyneApp.toml")
	}
	return string(m[1])
}

func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// packages are the package names of a Depends-style field, alternatives
// and versions dropped: "libc6 (>= 2.34), a | b" is libc6, a, b.
func packages(field string) []string {
	var names []string
	for _, alt := range strings.FieldsFunc(field, func(r rune) bool { return r == ',' || r == '|' }) {
		name, _, _ := strings.Cut(strings.TrimSpace(alt), " ")
		names = append(names, strings.TrimSuffix(name, ":any"))
	}
	return names
}

// owningPackages asks dpkg which packages hold a library of this name in
// a library folder ("libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6").
func owningPackages(t *testing.T, so string) []string {
	t.Helper()
	out, err := exec.Command("dpkg", "-S", "*/"+so).Output()
	if err != nil {
		t.Fatalf("dpkg -S */%s: %v", so, err)
	}
	var owners []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgs, path, ok := strings.Cut(line, ": ")
		if !ok || !strings.Contains(path, "/lib") || strings.Contains(path, "/debug/") || filepath.Base(path) != so {
			continue
		}
		for _, p := range strings.Split(pkgs, ", ") {
			name, _, _ := strings.Cut(p, ":")
			owners = append(owners, name)
		}
	}
	if len(owners) == 0 {
		t.Fatalf("no package holds %s:\n%s", so, out)
	}
	return owners
}

// modeOf reads "-rwxr-xr-x".
func modeOf(s string) fs.FileMode {
	var m fs.FileMode
	for i, c := range s[1:10] {
		if c != '-' {
			m |= 1 << (8 - i)
		}
	}
	return m
}
