package daemon

import (
	"path"
	"strings"
	"testing"
)

// Each OS's table, run on any machine: paths are joined with that OS's
// separator and taken as they are (a Windows path is absolute there, not
// here; TestResolvePaths covers making paths absolute).
func TestPlatformPaths(t *testing.T) {
	asIs := func(p string) (string, error) { return p, nil }
	windows := platform{goos: "windows", join: func(elem ...string) string { return strings.Join(elem, `\`) }, abs: asIs}
	darwin := platform{goos: "darwin", join: path.Join, abs: asIs}
	linux := platform{goos: "linux", join: path.Join, abs: asIs}
	for _, c := range []struct {
		name      string
		pl        platform
		env       map[string]string
		data, run string
		wantErr   bool
	}{
		{name: "windows: LOCALAPPDATA", pl: windows,
			env:  map[string]string{"LOCALAPPDATA": `C:\Users\me\AppData\Local`, "USERPROFILE": `C:\Users\me`, "XDG_RUNTIME_DIR": "/x"},
			data: `C:\Users\me\AppData\Local\Switchboard`, run: `C:\Users\me\AppData\Local\Switchboard\run`},
		{name: "windows: USERPROFILE without LOCALAPPDATA", pl: windows,
			env:  map[string]string{"USERPROFILE": `C:\Users\me`},
			data: `C:\Users\me\AppData\Local\Switchboard`, run: `C:\Users\me\AppData\Local\Switchboard\run`},
		{name: "windows: explicit dirs", pl: windows,
			env:  map[string]string{"LOCALAPPDATA": `C:\L`, "SWITCHBOARD_DATA_DIR": `D:\sb`, "SWITCHBOARD_RUNTIME_DIR": `D:\run`},
			data: `D:\sb`, run: `D:\run`},
		{name: "windows: HOME alone is not enough", pl: windows,
			env: map[string]string{"HOME": `/h`}, wantErr: true},
		{name: "darwin: Application Support and TMPDIR", pl: darwin,
			env:  map[string]string{"HOME": "/Users/me", "TMPDIR": "/var/folders/zz/abc/T/", "XDG_DATA_HOME": "/xd", "XDG_RUNTIME_DIR": "/x"},
			data: "/Users/me/Library/Application Support/Switchboard", run: "/var/folders/zz/abc/T/switchboard"},
		{name: "darwin: no TMPDIR, runtime under data", pl: darwin,
			env:  map[string]string{"HOME": "/Users/me"},
			data: "/Users/me/Library/Application Support/Switchboard", run: "/Users/me/Library/Application Support/Switchboard/run"},
		{name: "darwin: relative TMPDIR ignored", pl: darwin,
			env:  map[string]string{"HOME": "/Users/me", "TMPDIR": "tmp"},
			data: "/Users/me/Library/Application Support/Switchboard", run: "/Users/me/Library/Application Support/Switchboard/run"},
		{name: "darwin: explicit runtime dir", pl: darwin,
			env:  map[string]string{"HOME": "/Users/me", "TMPDIR": "/t", "SWITCHBOARD_RUNTIME_DIR": "/r"},
			data: "/Users/me/Library/Application Support/Switchboard", run: "/r"},
		{name: "darwin: no HOME", pl: darwin,
			env: map[string]string{"TMPDIR": "/t"}, wantErr: true},
		{name: "linux: XDG, TMPDIR not read", pl: linux,
			env:  map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/tmp"},
			data: "/h/.local/share/switchboard", run: "/run/user/1000/switchboard"},
		{name: "linux: LOCALAPPDATA not read", pl: linux,
			env: map[string]string{"LOCALAPPDATA": `C:\L`}, wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.pl.resolve(env(c.env))
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_DATA_DIR") {
					t.Fatalf("resolve = %+v, %v; want an error naming SWITCHBOARD_DATA_DIR", p, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if p.Data != c.data || p.Runtime != c.run {
				t.Errorf("resolve = {Data: %q, Runtime: %q}, want {Data: %q, Runtime: %q}", p.Data, p.Runtime, c.data, c.run)
			}
		})
	}
}
