package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// postMCP sends one JSON-RPC body to the endpoint, with a bearer token when
// token is not empty.
func postMCP(t *testing.T, endpoint, token, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// endpointPort returns the port of an http://127.0.0.1:PORT/mcp URL.
func endpointPort(t *testing.T, endpoint string) int {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port == 0 {
		t.Fatalf("endpoint %q has no port", endpoint)
	}
	return port
}

func TestStartServesAndClose(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	d := start(t, Config{Paths: p, Keyring: kr, Version: "v-test"})

	ep := d.Endpoint()
	u, err := url.Parse(ep)
	if err != nil || u.Scheme != "http" || u.Path != "/mcp" {
		t.Fatalf("Endpoint() = %q, want http://127.0.0.1:PORT/mcp", ep)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Errorf("endpoint host %q is not loopback", u.Hostname())
	}

	// Runtime files.
	b, err := os.ReadFile(p.Endpoint())
	if err != nil {
		t.Fatalf("endpoint file: %v", err)
	}
	if string(b) != ep+"\n" {
		t.Errorf("endpoint file = %q, want one line %q", b, ep)
	}
	if got := ReadEndpoint(p); got != ep {
		t.Errorf("ReadEndpoint = %q, want %q", got, ep)
	}
	pid, err := os.ReadFile(filepath.Join(p.Runtime, PIDFile))
	if err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("pid file = %q, %v; want %d", pid, err, os.Getpid())
	}
	fi, err := os.Stat(p.ControlSocket())
	if err != nil {
		t.Fatalf("control socket: %v", err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("control.sock mode %v is not a socket", fi.Mode())
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{
			p.Endpoint():                      0o600,
			filepath.Join(p.Runtime, PIDFile): 0o600,
			p.ControlSocket():                 0o600,
			p.DB():                            0o600,
			p.Runtime:                         0o700,
			p.Data:                            0o700,
		} {
			if got := perm(t, path); got != want {
				t.Errorf("%s: mode %#o, want %#o", path, got, want)
			}
		}
	}

	// The control socket answers with this process.
	h, err := control.NewClient(p.ControlSocket()).Hello(t.Context())
	if err != nil {
		t.Fatalf("Hello: %v", err)
	}
	if h.PID != os.Getpid() || h.Endpoint != ep || h.Version != "v-test" {
		t.Errorf("Hello = %+v", h)
	}

	// The endpoint is MCP over loopback HTTP: no token, 401.
	resp, body := postMCP(t, ep, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp without a token: %s, want 401", resp.Status)
	}
	if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, "Bearer") {
		t.Errorf("WWW-Authenticate = %q", got)
	}
	var rpcErr struct {
		Error struct {
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &rpcErr); err != nil || rpcErr.Error.Data.Code != string(store.CodeTokenMissing) {
		t.Errorf("body %s: want error.data.code %s", body, store.CodeTokenMissing)
	}
	// With the client token, the server answers.
	resp, body = postMCP(t, ep, d.clientToken(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Errorf("initialize with the client token: %s %s", resp.Status, body)
	}

	d.stop()
	for _, f := range []string{p.Endpoint(), filepath.Join(p.Runtime, PIDFile), p.ControlSocket()} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after Close (err %v)", f, err)
		}
	}
	if _, err := os.Stat(p.DB()); err != nil {
		t.Errorf("Close removed the database: %v", err)
	}
	if c, err := net.Dial("tcp", u.Host); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Close", u.Host)
	}
	if _, err := control.NewClient(p.ControlSocket()).Hello(t.Context()); !errors.Is(err, control.ErrNotRunning) {
		t.Errorf("Hello after Close: %v, want ErrNotRunning", err)
	}
}

func TestStartWhileRunning(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	first := start(t, Config{Paths: p, Keyring: kr})

	began := time.Now()
	second, err := Start(context.Background(), Config{Paths: p, Keyring: kr})
	if err == nil {
		second.Close(context.Background())
		t.Fatal("a second Start on the same paths succeeded")
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the second Start took %v to give up", took)
	}
	var are *AlreadyRunningError
	if !errors.As(err, &are) {
		t.Fatalf("second Start: %v, want *AlreadyRunningError", err)
	}
	if are.Endpoint != first.Endpoint() {
		t.Errorf("AlreadyRunningError.Endpoint = %q, want %q", are.Endpoint, first.Endpoint())
	}
	if are.PID != os.Getpid() {
		t.Errorf("AlreadyRunningError.PID = %d, want %d", are.PID, os.Getpid())
	}
	msg := err.Error()
	if !strings.Contains(msg, "already running") || !strings.Contains(msg, first.Endpoint()) {
		t.Errorf("message %q: want 'already running' and the endpoint", msg)
	}

	// The refused start left the running one alone.
	if got := ReadEndpoint(p); got != first.Endpoint() {
		t.Errorf("endpoint file after the refused start = %q", got)
	}
	if _, err := control.NewClient(p.ControlSocket()).Hello(t.Context()); err != nil {
		t.Errorf("the first daemon's socket no longer answers: %v", err)
	}
	first.mustAuthenticate(first.clientToken())
}

func TestStartWhileRunningOtherRuntimeDir(t *testing.T) {
	// Same data dir, another runtime dir: the socket check cannot see the
	// running one, the database lock does.
	p, kr := newPaths(t), keyring.NewMemory()
	first := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	other := p
	other.Runtime = p.Runtime + "2"
	began := time.Now()
	_, err := Start(context.Background(), Config{Paths: other, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	var are *AlreadyRunningError
	if !errors.As(err, &are) {
		t.Fatalf("Start: %v, want *AlreadyRunningError", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	first.mustAuthenticate(first.clientToken())
}

func TestStartAfterCrashLeavesStaleFiles(t *testing.T) {
	// A crashed run leaves its socket, pid and endpoint files; a new start
	// replaces them.
	p, kr := newPaths(t), keyring.NewMemory()
	if err := p.MakeDirs(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p.ControlSocket())
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the socket file stays, nobody answers
	if err := os.WriteFile(p.Endpoint(), []byte("http://127.0.0.1:1/mcp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Runtime, PIDFile), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := start(t, Config{Paths: p, Keyring: kr})
	if got := ReadEndpoint(p); got != d.Endpoint() || got == "http://127.0.0.1:1/mcp" {
		t.Errorf("endpoint file = %q, want %q", got, d.Endpoint())
	}
	if _, err := control.NewClient(p.ControlSocket()).Hello(t.Context()); err != nil {
		t.Errorf("Hello: %v", err)
	}
}

func TestStartListenOff(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	if err := p.MakeDirs(); err != nil {
		t.Fatal(err)
	}
	// A stale endpoint file from an earlier run must not advertise a dead
	// URL.
	if err := os.WriteFile(p.Endpoint(), []byte("http://127.0.0.1:1/mcp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
	if d.Endpoint() != "" {
		t.Errorf("Endpoint() = %q, want empty", d.Endpoint())
	}
	if _, err := os.Stat(p.Endpoint()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("endpoint file with the listener off: %v", err)
	}
	if _, err := os.Stat(p.ControlSocket()); err != nil {
		t.Errorf("control socket with the listener off: %v", err)
	}
	if lines := strings.Join(d.StartupLines(false), "\n"); !strings.Contains(lines, "off") {
		t.Errorf("StartupLines do not say the listener is off:\n%s", lines)
	}
}

func TestStartExplicitAddr(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	la, err := mcpserver.ParseListenAddr("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := start(t, Config{Paths: p, Keyring: kr, Listen: la})
	port := endpointPort(t, d.Endpoint())
	if !strings.HasPrefix(d.Endpoint(), "http://127.0.0.1:") {
		t.Errorf("Endpoint() = %q", d.Endpoint())
	}

	// An address that is taken fails Start, and Start lets go of
	// everything it opened.
	d.stop()
	blocker, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close()
	taken := blocker.Addr().String()
	_, err = Start(context.Background(), Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Addr: taken}})
	if err == nil || !strings.Contains(err.Error(), taken) {
		t.Fatalf("Start on a taken address: %v, want an error naming %s", err, taken)
	}
	if _, err := os.Stat(p.ControlSocket()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed Start left the control socket: %v", err)
	}
	d = start(t, Config{Paths: p, Keyring: kr})
	if got := endpointPort(t, d.Endpoint()); got != port {
		t.Errorf("default start after an explicit one: port %d, want the remembered %d", got, port)
	}
}

func TestStartRemembersPort(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	d := start(t, Config{Paths: p, Keyring: kr})
	port := endpointPort(t, d.Endpoint())
	raw := d.clientToken()
	// A client connection left open (and in TIME_WAIT after Close) must not
	// stop the restart from taking the same port.
	postMCP(t, d.Endpoint(), raw, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	d.stop()

	d = start(t, Config{Paths: p, Keyring: kr})
	if got := endpointPort(t, d.Endpoint()); got != port {
		t.Fatalf("restart: port %d, want the remembered %d", got, port)
	}
	resp, _ := postMCP(t, d.Endpoint(), "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("restarted endpoint: %s", resp.Status)
	}
	d.stop()

	// Somebody else took the port meanwhile: another one, and start anyway.
	blocker, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("take port %d: %v", port, err)
	}
	defer blocker.Close()
	d = start(t, Config{Paths: p, Keyring: kr})
	other := endpointPort(t, d.Endpoint())
	if other == port {
		t.Fatal("started on a port somebody else holds")
	}
	if got := ReadEndpoint(p); got != d.Endpoint() {
		t.Errorf("endpoint file = %q, want %q", got, d.Endpoint())
	}
	d.stop()
	blocker.Close()

	// The new port is remembered now.
	d = start(t, Config{Paths: p, Keyring: kr})
	if got := endpointPort(t, d.Endpoint()); got != other {
		t.Errorf("after the fallback: port %d, want %d", got, other)
	}
}

func TestStartupLines(t *testing.T) {
	t.Run("keyring", func(t *testing.T) {
		d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory(), Version: "v1"})
		lines := d.StartupLines(false)
		all := strings.Join(lines, "\n")
		if !strings.Contains(lines[0], d.Endpoint()) || !strings.Contains(lines[0], "v1") {
			t.Errorf("first line %q: want the version and the endpoint", lines[0])
		}
		if !strings.Contains(all, "keyring") || strings.Contains(all, "WARNING") {
			t.Errorf("lines:\n%s", all)
		}
		if strings.Contains(all, d.clientToken()) {
			t.Error("StartupLines print the client token")
		}
		if strings.Contains(all, "headless") {
			t.Error("not headless, but the lines say so")
		}
		if head := strings.Join(d.StartupLines(true), "\n"); !strings.Contains(head, "switchboard token client") {
			t.Errorf("headless lines do not say how to get the token:\n%s", head)
		}
	})
	t.Run("memory", func(t *testing.T) {
		d := start(t, Config{Paths: newPaths(t), Keyring: deadKeyring{}})
		all := strings.Join(d.StartupLines(false), "\n")
		for _, want := range []string{"this run only", "WARNING", "changes on restart", "unavailable", "--token-file"} {
			if !strings.Contains(all, want) {
				t.Errorf("lines do not say %q:\n%s", want, all)
			}
		}
		if strings.Contains(all, d.clientToken()) {
			t.Error("StartupLines print the client token")
		}
		if got := d.KeyringState(); !strings.HasPrefix(got, "unavailable") {
			t.Errorf("KeyringState = %q", got)
		}
	})
}

func TestDaemonClientTokenRotated(t *testing.T) {
	ctx := context.Background()
	t.Run("keyring", func(t *testing.T) {
		p, kr := newPaths(t), keyring.NewMemory()
		d := start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Off: true}})
		next, _, _ := store.NewTokenSecret()
		if err := d.ClientTokenRotated(next); err != nil {
			t.Fatal(err)
		}
		if got := d.clientToken(); got != next {
			t.Error("ClientToken after rotation is not the new token")
		}
		if kept, _ := keyringGet(t, kr, p.Data); kept != next {
			t.Error("the keyring does not hold the rotated token")
		}
	})
	t.Run("file", func(t *testing.T) {
		p := newPaths(t)
		d := start(t, Config{Paths: p, Keyring: deadKeyring{}, TokenFile: true, Listen: mcpserver.ListenAddr{Off: true}})
		next, _, _ := store.NewTokenSecret()
		if err := d.ClientTokenRotated(next); err != nil {
			t.Fatal(err)
		}
		if got, err := keyring.NewFile(p.tokenFile()).Get(ctx, KeyringService, keyringUser(p.Data)); err != nil || got != next {
			t.Errorf("token file holds %q, %v; want the rotated token", got, err)
		}
	})
	t.Run("memory", func(t *testing.T) {
		p := newPaths(t)
		d := start(t, Config{Paths: p, Keyring: deadKeyring{}, Listen: mcpserver.ListenAddr{Off: true}})
		next, _, _ := store.NewTokenSecret()
		if err := d.ClientTokenRotated(next); err != nil {
			t.Fatal(err)
		}
		if got := d.clientToken(); got != next {
			t.Error("ClientToken after rotation is not the new token")
		}
		if _, err := os.Stat(p.tokenFile()); !errors.Is(err, os.ErrNotExist) {
			t.Error("rotation wrote a token file without the opt-in")
		}
	})
	t.Run("environment", func(t *testing.T) {
		p, kr := newPaths(t), keyring.NewMemory()
		envTok, _, _ := store.NewTokenSecret()
		d := start(t, Config{Paths: p, Keyring: kr, EnvToken: envTok, Listen: mcpserver.ListenAddr{Off: true}})
		next, _, _ := store.NewTokenSecret()
		if err := d.ClientTokenRotated(next); err != nil {
			t.Fatal(err)
		}
		if got := d.clientToken(); got != next {
			t.Error("ClientToken after rotation is not the new token")
		}
		if _, ok := keyringGet(t, kr, p.Data); ok {
			t.Error("rotating the environment's token wrote the keyring")
		}
	})
}

func TestDaemonEnv(t *testing.T) {
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory(), Listen: mcpserver.ListenAddr{Off: true}})
	if !d.Running() {
		t.Error("Running() = false")
	}
	if got := d.KeyringState(); got != "available" {
		t.Errorf("KeyringState = %q", got)
	}
	if d.Registry() == nil {
		t.Error("Registry() = nil")
	}
}

func TestStartFailingLateReleasesEverything(t *testing.T) {
	for _, blocked := range []string{PIDFile, EndpointFile} {
		t.Run(blocked, func(t *testing.T) {
			p, kr := newPaths(t), keyring.NewMemory()
			// A non-empty folder where a runtime file goes: the rename
			// over it fails, after the listeners are up.
			if err := os.MkdirAll(filepath.Join(p.Runtime, blocked, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
			_, err := Start(context.Background(), Config{Paths: p, Keyring: kr})
			if err == nil {
				t.Fatal("Start succeeded with a folder in the way")
			}
			for _, f := range []string{p.ControlSocket(), p.Endpoint(), filepath.Join(p.Runtime, PIDFile)} {
				if f == filepath.Join(p.Runtime, blocked) {
					continue
				}
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("failed Start left %s (err %v)", filepath.Base(f), err)
				}
			}
			if _, err := control.NewClient(p.ControlSocket()).Hello(t.Context()); err == nil {
				t.Error("the control socket still answers after a failed Start")
			}
			// The database lock and the port are free again.
			if err := os.RemoveAll(filepath.Join(p.Runtime, blocked)); err != nil {
				t.Fatal(err)
			}
			d := start(t, Config{Paths: p, Keyring: kr})
			d.mustAuthenticate(d.clientToken())
		})
	}
}

// The listen address saved in Settings is used from the next start; the
// flag wins over it; "off" saved starts no listener; an address the rules
// refuse (written behind the registry's back) is passed over for the
// default rather than keeping the app from starting.
func TestStartUsesSavedListenAddr(t *testing.T) {
	p, kr := newPaths(t), keyring.NewMemory()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := free.Addr().(*net.TCPAddr).Port
	free.Close()
	save := func(d *running, addr string) {
		t.Helper()
		args, _ := json.Marshal(mcpserver.ConnectionSettings{ListenAddr: addr})
		if res := d.Registry().Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "connection.put", args); res.Err != nil {
			t.Fatal(res.Err)
		}
	}

	d := start(t, Config{Paths: p, Keyring: kr})
	save(d, strconv.Itoa(port))
	if _, from := d.Listen(); from != ListenDefault {
		t.Errorf("first start: listen address from %q, want %q", from, ListenDefault)
	}
	d.stop()

	d = start(t, Config{Paths: p, Keyring: kr})
	if got := endpointPort(t, d.Endpoint()); got != port {
		t.Errorf("after saving port %d: listening on %d", port, got)
	}
	if _, from := d.Listen(); from != ListenFromSettings {
		t.Errorf("listen address from %q, want %q", from, ListenFromSettings)
	}
	d.stop()

	d = start(t, Config{Paths: p, Keyring: kr, Listen: mcpserver.ListenAddr{Addr: "127.0.0.1:0"}})
	if got := endpointPort(t, d.Endpoint()); got == port {
		t.Errorf("the flag's address lost to the saved port %d", port)
	}
	if _, from := d.Listen(); from != ListenFromFlag {
		t.Errorf("listen address from %q, want %q", from, ListenFromFlag)
	}
	save(d, "off")
	d.stop()

	d = start(t, Config{Paths: p, Keyring: kr})
	if la, _ := d.Listen(); !la.Off || d.Endpoint() != "" {
		t.Errorf("saved off: listen %+v, endpoint %q", la, d.Endpoint())
	}
	d.stop()

	db, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(context.Background(), func(tx *store.Tx) error { return tx.SetSetting("mcp_http_addr", "0.0.0.0:8080") }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	d = start(t, Config{Paths: p, Keyring: kr})
	if la, from := d.Listen(); la.Addr != "" || la.Off || from != ListenDefault || d.Endpoint() == "" {
		t.Errorf("refused saved address: listen %+v from %q, endpoint %q; want the default", la, from, d.Endpoint())
	}
}
