package daemon

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolvePaths(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the XDG fallbacks are the Linux/BSD ones")
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		env         map[string]string
		data, run   string
		errContains string
	}{
		{
			name: "explicit both",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "/d", "SWITCHBOARD_RUNTIME_DIR": "/r", "XDG_RUNTIME_DIR": "/x", "XDG_DATA_HOME": "/xd", "HOME": "/h"},
			data: "/d", run: "/r",
		},
		{
			name: "data dir, xdg runtime",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "/d", "XDG_RUNTIME_DIR": "/run/user/1000"},
			data: "/d", run: "/run/user/1000/switchboard",
		},
		{
			name: "data dir, no runtime: data/run",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "/d"},
			data: "/d", run: "/d/run",
		},
		{
			name: "xdg data home",
			env:  map[string]string{"XDG_DATA_HOME": "/xd", "HOME": "/h"},
			data: "/xd/switchboard", run: "/xd/switchboard/run",
		},
		{
			name: "home",
			env:  map[string]string{"HOME": "/h"},
			data: "/h/.local/share/switchboard", run: "/h/.local/share/switchboard/run",
		},
		{
			name: "home and xdg runtime",
			env:  map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": "/x"},
			data: "/h/.local/share/switchboard", run: "/x/switchboard",
		},
		{
			name: "runtime dir without data dir",
			env:  map[string]string{"HOME": "/h", "SWITCHBOARD_RUNTIME_DIR": "/r"},
			data: "/h/.local/share/switchboard", run: "/r",
		},
		{
			name: "relative explicit dirs are made absolute",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "rel/data", "SWITCHBOARD_RUNTIME_DIR": "rel/run/"},
			data: filepath.Join(cwd, "rel/data"), run: filepath.Join(cwd, "rel/run"),
		},
		{
			name: "relative data dir, runtime under it",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "./d"},
			data: filepath.Join(cwd, "d"), run: filepath.Join(cwd, "d", "run"),
		},
		{
			// The XDG Base Directory spec: a relative path in an XDG
			// variable is invalid and must be ignored.
			name: "relative xdg values are ignored",
			env:  map[string]string{"HOME": "/h", "XDG_DATA_HOME": "xd", "XDG_RUNTIME_DIR": "x"},
			data: "/h/.local/share/switchboard", run: "/h/.local/share/switchboard/run",
		},
		{
			name: "unclean paths are cleaned",
			env:  map[string]string{"SWITCHBOARD_DATA_DIR": "/d/../e//", "XDG_RUNTIME_DIR": "/x/"},
			data: "/e", run: "/x/switchboard",
		},
		{
			name:        "nothing to go on",
			env:         map[string]string{},
			errContains: "SWITCHBOARD_DATA_DIR",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ResolvePaths(env(c.env))
			if c.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), c.errContains) {
					t.Fatalf("ResolvePaths = %+v, %v; want an error mentioning %s", p, err, c.errContains)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolvePaths: %v", err)
			}
			if p.Data != c.data || p.Runtime != c.run {
				t.Errorf("ResolvePaths = {Data: %q, Runtime: %q}, want {Data: %q, Runtime: %q}", p.Data, p.Runtime, c.data, c.run)
			}
		})
	}
}

func TestPathsFiles(t *testing.T) {
	p := Paths{Data: "/d", Runtime: "/r"}
	for got, want := range map[string]string{
		p.DB():            "/d/state.db",
		p.Endpoint():      "/r/mcp-http-endpoint",
		p.ControlSocket(): "/r/control.sock",
		p.tokenFile():     "/d/client-token.json",
	} {
		if got != filepath.FromSlash(want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestMakeDirs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := t.TempDir()
	p := Paths{Data: filepath.Join(dir, "a", "data"), Runtime: filepath.Join(dir, "b", "run")}
	if err := p.MakeDirs(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{p.Data, filepath.Join(p.Data, "logs"), filepath.Join(p.Data, "recordings"), p.Runtime} {
		if got := perm(t, d); got != 0o700 {
			t.Errorf("%s: mode %#o, want 0700", d, got)
		}
	}

	// Folders that exist looser are tightened.
	for _, d := range []string{p.Data, filepath.Join(p.Data, "logs"), p.Runtime} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.MakeDirs(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{p.Data, filepath.Join(p.Data, "logs"), p.Runtime} {
		if got := perm(t, d); got != 0o700 {
			t.Errorf("%s after MakeDirs on 0755: mode %#o, want 0700", d, got)
		}
	}

	// A file where a folder should be is an error, not a panic or a
	// silent success.
	bad := Paths{Data: filepath.Join(dir, "file"), Runtime: filepath.Join(dir, "run2")}
	if err := os.WriteFile(bad.Data, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := bad.MakeDirs(); err == nil {
		t.Error("MakeDirs over a file: want an error")
	}
}

func TestWriteFileAtomicAndReadEndpoint(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Data: dir, Runtime: dir}
	if got := ReadEndpoint(p); got != "" {
		t.Errorf("ReadEndpoint with no file = %q, want empty", got)
	}
	// An older, looser file is replaced by an owner-only one.
	if err := os.WriteFile(p.Endpoint(), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(p.Endpoint(), []byte("http://127.0.0.1:1/mcp\n")); err != nil {
		t.Fatal(err)
	}
	if got := ReadEndpoint(p); got != "http://127.0.0.1:1/mcp" {
		t.Errorf("ReadEndpoint = %q", got)
	}
	if runtime.GOOS != "windows" {
		if got := perm(t, p.Endpoint()); got != 0o600 {
			t.Errorf("endpoint file mode %#o, want 0600", got)
		}
	}
	// No temporary files are left behind.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only %s", names, EndpointFile)
	}
	// A folder that does not exist is an error.
	if err := writeFileAtomic(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("writeFileAtomic into a missing folder: want an error")
	}
}
