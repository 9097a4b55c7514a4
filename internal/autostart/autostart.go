// Package autostart turns Switchboard's start at login on and off: an XDG
// autostart entry, $XDG_CONFIG_HOME/autostart/switchboard.desktop, that
// desktops following the XDG Autostart spec (GNOME, KDE, Xfce, …) run when
// the person logs in. The file is the whole state: there is no registry
// record of it, so the CLI, Settings and the tray all read the file itself.
//
// An entry someone wrote or edited by hand is theirs: Enable does not
// replace it and Disable does not remove it unless told to, and both say so.
package autostart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/switchboard-dev/switchboard/internal/atomicfile"
)

// FileName is the entry's name in the autostart folder. Desktops let an
// entry of this name here hide a system-wide one of the same name, so it
// stays "switchboard", not the app id the installed menu entry uses.
const FileName = "switchboard.desktop"

// IconName is the icon the entry names: the app id, which `make install`
// uses as the hicolor icon's name (app.AppID and FyneApp.toml say the same;
// a test in app keeps them equal).
const IconName = "dev.switchboard.app"

// marker is the key that says Switchboard wrote the entry. Desktop Entry
// keys starting with X- are for applications and ignored by everyone else.
const marker = "X-Switchboard-Autostart"

// maxEntry bounds what is read of an existing entry: ours is a few hundred
// bytes, and a larger file is certainly not ours.
const maxEntry = 64 << 10

// mode is the entry's mode: owner-only like every file Switchboard writes;
// the desktop session reading it runs as the same person.
const mode = 0o600

var (
	// ErrNotOurs means an entry exists that Switchboard did not write (no
	// marker key, or unreadable as one): it was left as it is.
	ErrNotOurs = errors.New("the autostart entry was not written by Switchboard")
	// ErrEdited means Switchboard's entry was changed by hand since it was
	// written (besides the binary's path): it was left as it is.
	ErrEdited = errors.New("the autostart entry was edited by hand")
)

// Env is what the package reads of the process: the environment (for
// XDG_CONFIG_HOME and HOME).
type Env struct {
	Getenv func(string) string
}

// Dir is the autostart folder: $XDG_CONFIG_HOME/autostart, or
// $HOME/.config/autostart when XDG_CONFIG_HOME is unset, empty or relative
// (the XDG Base Directory spec says to ignore a relative one).
func (e Env) Dir() (string, error) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		// Their own mechanisms (a Run key, a LaunchAgent) are not written here;
		// an XDG entry there would start nothing.
		return "", fmt.Errorf("start at login: not done on %s yet (only XDG desktops: Linux, the BSDs)", runtime.GOOS)
	}
	if cfg := e.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(cfg) {
		return filepath.Join(cfg, "autostart"), nil
	}
	home := e.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("find the autostart folder: neither XDG_CONFIG_HOME nor HOME is an absolute path")
	}
	return filepath.Join(home, ".config", "autostart"), nil
}

// Path is the entry's file.
func (e Env) Path() (string, error) {
	dir, err := e.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}

// State is what the autostart folder holds for Switchboard.
type State struct {
	// Path is the entry's file, whether or not it exists.
	Path string
	// Exists is true when there is a file at Path.
	Exists bool
	// Ours is true when Switchboard wrote it (it carries the marker key).
	Ours bool
	// Edited is true for our entry changed by hand since (besides Exec).
	Edited bool
	// Enabled is true when the desktop will run it at login: it exists
	// and is neither Hidden nor switched off by X-GNOME-Autostart-enabled.
	Enabled bool
	// Exec is the program the entry starts (its first Exec argument,
	// unquoted); empty when it has none or it cannot be read.
	Exec string
	// ExecMissing is true when Exec names a file that does not exist,
	// such as a binary removed or moved since the entry was written.
	ExecMissing bool
}

// Status reads the entry.
func (e Env) Status() (State, error) {
	path, err := e.Path()
	if err != nil {
		return State{}, err
	}
	st := State{Path: path}
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// ENOTDIR: the autostart folder is a file, so no entry can be there
		// (Enable says so when it cannot make the folder).
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read the autostart entry: %w", err)
	}
	st.Exists = true
	entry, ok := parse(data)
	if !ok {
		// Not a desktop entry we can read: someone else's, and nothing a
		// desktop would start either.
		return st, nil
	}
	st.Ours = entry.get(marker) == "true"
	st.Enabled = entry.get("Hidden") != "true" && entry.get("X-GNOME-Autostart-enabled") != "false"
	if args, err := splitExec(entry.get("Exec")); err == nil && len(args) > 0 {
		st.Exec = args[0]
		if filepath.IsAbs(st.Exec) {
			_, err := os.Stat(st.Exec)
			st.ExecMissing = errors.Is(err, fs.ErrNotExist)
		}
	}
	if st.Ours {
		// Ours unless what is there differs from what we would have
		// written for the same program.
		want, err := Render(st.Exec)
		st.Edited = err != nil || !bytes.Equal(data, want)
	}
	return st, nil
}

// Enable writes the entry so that exe (an absolute path) starts at login.
// It replaces our own entry (updating the path of a binary that moved), but
// not one written or edited by someone else: then it returns the state with
// ErrNotOurs or ErrEdited, unless force is set.
func (e Env) Enable(exe string, force bool) (State, error) {
	if !filepath.IsAbs(exe) {
		return State{}, fmt.Errorf("turn autostart on: the program path %q is not absolute", exe)
	}
	data, err := Render(exe)
	if err != nil {
		return State{}, fmt.Errorf("turn autostart on: %w", err)
	}
	st, err := e.Status()
	if err != nil {
		return st, fmt.Errorf("turn autostart on: %w", err)
	}
	if err := refuseTheirs(st, force); err != nil {
		return st, err
	}
	if err := os.MkdirAll(filepath.Dir(st.Path), 0o700); err != nil {
		return st, fmt.Errorf("turn autostart on: create the autostart folder: %w", err)
	}
	target, err := resolve(st.Path)
	if err != nil {
		return st, fmt.Errorf("turn autostart on: %w", err)
	}
	if err := atomicfile.Write(target, data, mode); err != nil {
		return st, fmt.Errorf("turn autostart on: write %s: %w", target, err)
	}
	return e.Status()
}

// Disable removes our entry. An entry that is not ours, or ours edited by
// hand, stays unless force is set (ErrNotOurs, ErrEdited). No entry is not
// an error: autostart is off either way.
func (e Env) Disable(force bool) (State, error) {
	st, err := e.Status()
	if err != nil {
		return st, fmt.Errorf("turn autostart off: %w", err)
	}
	if !st.Exists {
		return st, nil
	}
	if err := refuseTheirs(st, force); err != nil {
		return st, err
	}
	// A link is removed, not what it points to: the entry is the link.
	if err := os.Remove(st.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("turn autostart off: remove %s: %w", st.Path, err)
	}
	return e.Status()
}

// refuseTheirs says why an existing entry is left alone.
func refuseTheirs(st State, force bool) error {
	switch {
	case force || !st.Exists:
		return nil
	case !st.Ours:
		return fmt.Errorf("%w: %s left as it is (remove it yourself, or use --force)", ErrNotOurs, st.Path)
	case st.Edited:
		return fmt.Errorf("%w: %s left as it is (use --force to replace or remove it)", ErrEdited, st.Path)
	}
	return nil
}

// resolve follows a link at path (a dotfiles manager's, say), so that the
// entry is rewritten where it lives and the link stays.
func resolve(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("follow the link %s: %w", path, err)
	}
	return target, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEntry+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxEntry {
		// Too large to be ours; the parser would say "not ours" anyway.
		return []byte{}, nil
	}
	return data, nil
}

// Render is the entry Switchboard writes for exe.
func Render(exe string) ([]byte, error) {
	execValue, err := quoteExec(exe)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Name=Switchboard\n")
	b.WriteString("Comment=Supervise AI coding agents from the tray\n")
	b.WriteString("Exec=" + execValue + "\n")
	// TryExec: a desktop skips the entry once the binary is gone, rather
	// than failing at every login.
	b.WriteString("TryExec=" + escapeString(exe) + "\n")
	b.WriteString("Icon=" + IconName + "\n")
	b.WriteString("Terminal=false\n")
	b.WriteString("Categories=Development;\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	b.WriteString(marker + "=true\n")
	return []byte(b.String()), nil
}

// Executable is the running program's absolute path with links resolved:
// what an entry should start, so that it keeps working when a link in
// PATH (~/.local/bin/switchboard, say) is later pointed elsewhere.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the running program: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("find the running program: resolve %s: %w", exe, err)
	}
	return filepath.Abs(resolved)
}

// Transient reports whether exe looks like a binary that will not be
// there at the next login: one `go run` built in a temporary folder.
func Transient(exe string) bool {
	for _, dir := range []string{os.TempDir(), "/tmp"} {
		if rel, err := filepath.Rel(dir, exe); err == nil && strings.HasPrefix(rel, "go-build") {
			return true
		}
	}
	return false
}
