package daemon

import (
	"errors"
	"path/filepath"
	"runtime"
)

// Where each OS keeps an application's files:
//
//	Linux    data     $XDG_DATA_HOME/switchboard, else ~/.local/share/switchboard
//	         runtime  $XDG_RUNTIME_DIR/switchboard, else <data>/run
//	macOS    data     ~/Library/Application Support/Switchboard
//	         runtime  $TMPDIR/switchboard, else <data>/run
//	Windows  data     %LOCALAPPDATA%\Switchboard, else %USERPROFILE%\AppData\Local\Switchboard
//	         runtime  <data>\run
//
// $SWITCHBOARD_DATA_DIR and $SWITCHBOARD_RUNTIME_DIR come first everywhere.
// $TMPDIR on macOS is the per-user folder launchd makes (0700, under
// /var/folders, emptied at boot): the nearest thing to XDG_RUNTIME_DIR,
// and short enough for the 104 bytes of a socket path. Windows has no
// runtime folder of the kind; %LOCALAPPDATA% is the user's own (its ACL,
// inherited from the profile, admits only the user, SYSTEM and
// Administrators), and that ACL is what guards the control socket there
// (see mcpserver/control/peercred_windows.go). The XDG variables are the
// Linux and BSD convention and are not read on macOS or Windows.

// platform is the OS whose conventions the paths follow, with its path
// functions, so that each OS's table is tested on any machine.
type platform struct {
	goos string
	join func(elem ...string) string
	abs  func(string) (string, error)
}

// hostPlatform is the OS this program runs on.
func hostPlatform() platform {
	return platform{goos: runtime.GOOS, join: filepath.Join, abs: filepath.Abs}
}

// resolve is ResolvePaths on pl.
func (pl platform) resolve(getenv func(string) string) (Paths, error) {
	var p Paths
	p.Data = getenv("SWITCHBOARD_DATA_DIR")
	if p.Data == "" {
		base, err := pl.userDataDir(getenv)
		if err != nil {
			return p, err
		}
		p.Data = pl.join(base, pl.appFolder())
	}
	p.Runtime = getenv("SWITCHBOARD_RUNTIME_DIR")
	if p.Runtime == "" {
		if base := pl.runtimeDir(getenv); base != "" {
			p.Runtime = pl.join(base, "switchboard")
		} else {
			p.Runtime = pl.join(p.Data, "run")
		}
	}
	var err error
	if p.Data, err = pl.abs(p.Data); err != nil {
		return p, err
	}
	if p.Runtime, err = pl.abs(p.Runtime); err != nil {
		return p, err
	}
	return p, nil
}

// appFolder is the data folder's name: lower case on Linux as its other
// dot-less folders are, the product's name where folders are named so.
func (pl platform) appFolder() string {
	switch pl.goos {
	case "windows", "darwin":
		return "Switchboard"
	}
	return "switchboard"
}

func (pl platform) userDataDir(getenv func(string) string) (string, error) {
	switch pl.goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			return d, nil
		}
		if h := getenv("USERPROFILE"); h != "" {
			return pl.join(h, "AppData", "Local"), nil
		}
	case "darwin":
		if h := getenv("HOME"); h != "" {
			return pl.join(h, "Library", "Application Support"), nil
		}
	default:
		if d := xdgDir(getenv, "XDG_DATA_HOME"); d != "" {
			return d, nil
		}
		if h := getenv("HOME"); h != "" {
			return pl.join(h, ".local", "share"), nil
		}
	}
	return "", errors.New("cannot tell the user data dir: set SWITCHBOARD_DATA_DIR")
}

// runtimeDir is the folder the runtime folder goes in, "" for <data>/run.
func (pl platform) runtimeDir(getenv func(string) string) string {
	switch pl.goos {
	case "windows":
		return ""
	case "darwin":
		if d := getenv("TMPDIR"); filepath.IsAbs(d) {
			return d
		}
		return ""
	}
	return xdgDir(getenv, "XDG_RUNTIME_DIR")
}

// xdgDir returns the XDG variable name when it holds an absolute path. The
// XDG Base Directory spec calls a relative one invalid, to be ignored: taken
// relative to the working directory, the CLI started elsewhere would look
// for the control socket and the database in another place.
func xdgDir(getenv func(string) string, name string) string {
	if d := getenv(name); filepath.IsAbs(d) {
		return d
	}
	return ""
}
