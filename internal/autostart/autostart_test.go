package autostart

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }}
}

func TestDir(t *testing.T) {
	for _, tc := range []struct {
		name    string
		vars    map[string]string
		want    string
		wantErr bool
	}{
		{"XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/p"}, "/cfg/autostart", false},
		{"unset: HOME/.config", map[string]string{"HOME": "/home/p"}, "/home/p/.config/autostart", false},
		{"empty: HOME/.config", map[string]string{"XDG_CONFIG_HOME": "", "HOME": "/home/p"}, "/home/p/.config/autostart", false},
		{"relative is ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "HOME": "/home/p"}, "/home/p/.config/autostart", false},
		{"no HOME either", map[string]string{"XDG_CONFIG_HOME": "cfg"}, "", true},
		{"relative HOME", map[string]string{"HOME": "home"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := envOf(tc.vars).Dir()
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("Dir() = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// Every path a binary can live at comes back out of Exec unchanged, and
// desktop-file-validate accepts the entry.
func TestRenderQuotesExec(t *testing.T) {
	validator := requireValidator(t)
	for _, tc := range []struct {
		path     string
		wantExec string // the Exec line as written, "" to skip
	}{
		{"/usr/bin/switchboard", "Exec=/usr/bin/switchboard"},
		{"/home/p/my apps/switchboard", `Exec="/home/p/my apps/switchboard"`},
		{"/opt/100%/switchboard", "Exec=/opt/100%%/switchboard"},
		{`/opt/a"b/$HOME/x` + "`y`/switchboard", `Exec="/opt/a\\"b/\\$HOME/x\\` + "`y\\\\`" + `/switchboard"`},
		{`/opt/back\slash/switchboard`, `Exec="/opt/back\\\\slash/switchboard"`},
		{"/opt/~me/(x)#1;&|*?<>'/switchboard", ""},
		{"/opt/naïve ünïcode/switchboard", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			data, err := Render(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantExec != "" && !bytes.Contains(data, []byte("\n"+tc.wantExec+"\n")) {
				t.Errorf("want line %s in\n%s", tc.wantExec, data)
			}
			e, ok := parse(data)
			if !ok {
				t.Fatalf("our own entry does not parse:\n%s", data)
			}
			args, err := splitExec(e.get("Exec"))
			if err != nil || len(args) != 1 || args[0] != tc.path {
				t.Errorf("Exec splits into %q, %v; want [%q]", args, err, tc.path)
			}
			if e.get("TryExec") != tc.path {
				t.Errorf("TryExec = %q", e.get("TryExec"))
			}
			validate(t, validator, data)
		})
	}
	for _, bad := range []string{"/opt/new\nline/switchboard", "/opt/tab\there", "/opt/\xff"} {
		if _, err := Render(bad); err == nil {
			t.Errorf("Render(%q) wrote an entry", bad)
		}
	}
}

func TestSplitExec(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    []string
		wantErr bool
	}{
		{"switchboard --headless", []string{"switchboard", "--headless"}, false},
		{`"/a b/c"  %U`, []string{"/a b/c", "%U"}, false},
		{`"/a \"b\""`, []string{`/a "b"`}, false},
		{"100%%", []string{"100%"}, false},
		{`"/a b`, nil, true},
		{"", nil, false},
	} {
		got, err := splitExec(tc.value)
		if (err != nil) != tc.wantErr || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("splitExec(%q) = %q, %v; want %q, error %v", tc.value, got, err, tc.want, tc.wantErr)
		}
	}
}

// fixture is a config folder, a real program for Exec, and what the
// autostart folder holds before the step.
type fixture struct {
	env  Env
	dir  string // the autostart folder
	path string // the entry
	exe  string // an existing program
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	exe := filepath.Join(root, "bin dir", "switchboard")
	if err := os.MkdirAll(filepath.Dir(exe), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "config")
	env := envOf(map[string]string{"XDG_CONFIG_HOME": cfg, "HOME": filepath.Join(root, "home")})
	dir := filepath.Join(cfg, "autostart")
	return fixture{env: env, dir: dir, path: filepath.Join(dir, FileName), exe: exe}
}

func (f fixture) write(t *testing.T, content string) {
	t.Helper()
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) content(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ours(t *testing.T, exe string) string {
	t.Helper()
	b, err := Render(exe)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const foreign = "[Desktop Entry]\nType=Application\nName=My Switchboard\nExec=/opt/sb/switchboard --headless\n"

func TestEnableDisable(t *testing.T) {
	validator := requireValidator(t)
	type step struct {
		op      string // on, on!, off, off! (! = force)
		wantErr error  // nil, ErrNotOurs, ErrEdited
		want    State  // Path and Exec filled in by the test when "exe"
		// wantFile is the entry afterwards: "ours" (Render of the
		// fixture's exe), "" (gone), or "kept" (what was there before).
		wantFile string
	}
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, f fixture) // "" means no entry
		steps  []step
	}{
		{"off by default, on, off", nil, []step{
			{"off", nil, State{}, ""},
			{"on", nil, State{Exists: true, Ours: true, Enabled: true, Exec: "exe"}, "ours"},
			{"on", nil, State{Exists: true, Ours: true, Enabled: true, Exec: "exe"}, "ours"},
			{"off", nil, State{}, ""},
		}},
		{"someone else's entry is kept", func(t *testing.T, f fixture) { f.write(t, foreign) }, []step{
			{"on", ErrNotOurs, State{Exists: true, Enabled: true, Exec: "/opt/sb/switchboard", ExecMissing: true}, "kept"},
			{"off", ErrNotOurs, State{Exists: true, Enabled: true, Exec: "/opt/sb/switchboard", ExecMissing: true}, "kept"},
			{"on!", nil, State{Exists: true, Ours: true, Enabled: true, Exec: "exe"}, "ours"},
		}},
		{"someone else's entry removed when forced", func(t *testing.T, f fixture) { f.write(t, foreign) }, []step{
			{"off!", nil, State{}, ""},
		}},
		{"a file that is no desktop entry", func(t *testing.T, f fixture) { f.write(t, "Exec=/bin/true\n") }, []step{
			{"on", ErrNotOurs, State{Exists: true}, "kept"},
		}},
		{"our entry edited by hand", func(t *testing.T, f fixture) {
			f.write(t, strings.Replace(ours(t, f.exe), "Terminal=false\n", "Terminal=false\nX-KDE-autostart-after=panel\n", 1))
		}, []step{
			{"on", ErrEdited, State{Exists: true, Ours: true, Edited: true, Enabled: true, Exec: "exe"}, "kept"},
			{"off", ErrEdited, State{Exists: true, Ours: true, Edited: true, Enabled: true, Exec: "exe"}, "kept"},
			{"off!", nil, State{}, ""},
		}},
		{"our entry switched off in the desktop's settings", func(t *testing.T, f fixture) {
			f.write(t, ours(t, f.exe)+"Hidden=true\n")
		}, []step{
			{"on", ErrEdited, State{Exists: true, Ours: true, Edited: true, Exec: "exe"}, "kept"},
			{"on!", nil, State{Exists: true, Ours: true, Enabled: true, Exec: "exe"}, "ours"},
		}},
		{"the binary moved: on follows it", func(t *testing.T, f fixture) {
			f.write(t, ours(t, "/gone/switchboard"))
			st, err := f.env.Status()
			if err != nil || !st.Ours || st.Edited || !st.ExecMissing || st.Exec != "/gone/switchboard" {
				t.Errorf("status of an entry whose binary is gone: %+v, %v", st, err)
			}
		}, []step{
			{"on", nil, State{Exists: true, Ours: true, Enabled: true, Exec: "exe"}, "ours"},
		}},
		{"an entry too large to be ours", func(t *testing.T, f fixture) {
			f.write(t, "[Desktop Entry]\n"+marker+"=true\n"+strings.Repeat("#", maxEntry))
		}, []step{
			{"off", ErrNotOurs, State{Exists: true}, "kept"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.before != nil {
				tc.before(t, f)
			}
			for i, s := range tc.steps {
				before := f.content(t)
				var st State
				var err error
				switch s.op {
				case "on", "on!":
					st, err = f.env.Enable(f.exe, s.op == "on!")
				case "off", "off!":
					st, err = f.env.Disable(s.op == "off!")
				}
				if !errors.Is(err, s.wantErr) || (s.wantErr == nil) != (err == nil) {
					t.Fatalf("step %d %s: error %v, want %v", i, s.op, err, s.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), f.path) {
					t.Errorf("step %d %s: the error does not name the file: %v", i, s.op, err)
				}
				want := s.want
				want.Path = f.path
				if want.Exec == "exe" {
					want.Exec = f.exe
				}
				if st != want {
					t.Errorf("step %d %s: state\n got %+v\nwant %+v", i, s.op, st, want)
				}
				if again, err := f.env.Status(); err != nil || again != st {
					t.Errorf("step %d %s: Status() = %+v, %v; the step returned %+v", i, s.op, again, err, st)
				}
				got := f.content(t)
				switch s.wantFile {
				case "ours":
					if got != ours(t, f.exe) {
						t.Errorf("step %d %s: entry\n%s", i, s.op, got)
					}
					fi, err := os.Stat(f.path)
					if err != nil || fi.Mode().Perm() != 0o600 {
						t.Errorf("step %d %s: mode %v, %v", i, s.op, fi.Mode(), err)
					}
					validate(t, validator, []byte(got))
				case "kept":
					if got != before {
						t.Errorf("step %d %s: changed an entry it should have kept:\n%s", i, s.op, got)
					}
				case "":
					if _, err := os.Lstat(f.path); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("step %d %s: the entry is still there: %v", i, s.op, err)
					}
				}
			}
			// Nothing else is ever left in the folder (no temporary files).
			entries, _ := os.ReadDir(f.dir)
			for _, e := range entries {
				if e.Name() != FileName {
					t.Errorf("left %s in the autostart folder", e.Name())
				}
			}
		})
	}
}

// The folder is created owner-only when missing.
func TestEnableCreatesFolder(t *testing.T) {
	f := newFixture(t)
	if _, err := f.env.Enable(f.exe, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("autostart folder: %v, %v", fi.Mode(), err)
	}
	if _, err := f.env.Enable("relative/switchboard", false); err == nil {
		t.Error("a relative program path was accepted")
	}
}

// An entry that is a link (a dotfiles manager's) is rewritten where it
// points, and turning off removes the link, not its target.
func TestEnableFollowsLink(t *testing.T) {
	f := newFixture(t)
	dotfiles := filepath.Join(t.TempDir(), "switchboard.desktop")
	if err := os.WriteFile(dotfiles, []byte(ours(t, "/gone/switchboard")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, f.path); err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.Enable(f.exe, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(f.path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != ours(t, f.exe) {
		t.Errorf("the link's target:\n%s", b)
	}
	if _, err := f.env.Disable(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if _, err := os.Stat(dotfiles); err != nil {
		t.Errorf("the link's target went too: %v", err)
	}
}

// requireValidator finds desktop-file-validate (desktop-file-utils, which
// scripts/deps.sh test installs).
func requireValidator(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate not found: run scripts/deps.sh test (it installs desktop-file-utils)")
	}
	return p
}

func validate(t *testing.T, validator string, data []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(validator, path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s\n%s", err, out, data)
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		exe  string
		want bool
	}{
		{filepath.Join(os.TempDir(), "go-build1234", "b001", "exe", "switchboard"), true},
		{"/tmp/go-build99/b001/exe/switchboard", true},
		{"/home/p/.local/bin/switchboard", false},
		{filepath.Join(os.TempDir(), "switchboard"), false},
	} {
		if got := Transient(tc.exe); got != tc.want {
			t.Errorf("Transient(%s) = %v", tc.exe, got)
		}
	}
}

// An autostart "folder" that is a file holds no entry; Enable says why it
// cannot write one.
func TestFolderIsAFile(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Dir(f.dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.dir, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := f.env.Status(); err != nil || st.Exists {
		t.Errorf("Status() = %+v, %v", st, err)
	}
	if _, err := f.env.Enable(f.exe, false); err == nil || !strings.Contains(err.Error(), "create the autostart folder") {
		t.Errorf("Enable: %v", err)
	}
	if _, err := f.env.Disable(false); err != nil {
		t.Errorf("Disable: %v", err)
	}
}

// The tray reads the entry on every 2-second tick: Status against a bare
// os.Stat of the same file, the least any check could cost.
func BenchmarkStatus(b *testing.B) {
	root := b.TempDir()
	exe := filepath.Join(root, "switchboard")
	if err := os.WriteFile(exe, nil, 0o700); err != nil {
		b.Fatal(err)
	}
	env := envOf(map[string]string{"XDG_CONFIG_HOME": root})
	if _, err := env.Enable(exe, false); err != nil {
		b.Fatal(err)
	}
	path, _ := env.Path()
	b.Run("Status", func(b *testing.B) {
		for b.Loop() {
			if st, err := env.Status(); err != nil || !st.Enabled {
				b.Fatal(st, err)
			}
		}
	})
	b.Run("baseline-stat", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.Stat(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
