package control

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const testVersion = "9.9.9-test"

// testEnv is the Env of a running daemon, for status.
type testEnv struct{}

func (testEnv) Endpoint() string                { return "http://127.0.0.1:4242/mcp" }
func (testEnv) Running() bool                   { return true }
func (testEnv) KeyringState() string            { return "test" }
func (testEnv) ClientToken() (string, error)    { return "", errors.New("none") }
func (testEnv) ClientTokenRotated(string) error { return nil }

func newRegistry(t *testing.T) (*mcpserver.Registry, *store.DB) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return mcpserver.New(db, mcpserver.Options{Version: testVersion, Env: testEnv{}}), db
}

func socketPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "run", SocketName)
}

var testHello = Hello{PID: 4321, Endpoint: "http://127.0.0.1:4242/mcp", Version: testVersion}

// serve runs s on ln until the test ends, then checks that Serve returned
// nil after Shutdown.
func serve(t *testing.T, s *Server, ln net.Listener) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve after Shutdown: %v", err)
		}
	})
}

// startServer listens on a fresh socket and serves reg there.
func startServer(t *testing.T, reg *mcpserver.Registry) (string, *Server) {
	t.Helper()
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	s := NewServer(reg, func() Hello { return testHello }, nil, slog.New(slog.DiscardHandler))
	serve(t, s, ln)
	return path, s
}

func answers(path string) bool {
	c, err := net.Dial("unix", path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func TestListenCreatesOwnerOnlySocket(t *testing.T) {
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket 0600", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("runtime dir mode %v, want 0700", di.Mode().Perm())
	}
	if !answers(path) {
		t.Error("the new socket does not answer")
	}
	ln.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file after Close: %v", err)
	}
}

func TestListenRefusesLiveSocket(t *testing.T) {
	reg, _ := newRegistry(t)
	path, _ := startServer(t, reg)

	ln, err := Listen(path)
	if !errors.Is(err, ErrInUse) {
		if ln != nil {
			ln.Close()
		}
		t.Fatalf("second Listen: %v, want ErrInUse", err)
	}
	// The running one is untouched and still serves.
	h, err := NewClient(path).Hello(t.Context())
	if err != nil || h != testHello {
		t.Fatalf("Hello after a refused Listen: %+v, %v", h, err)
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	path := socketPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// A socket file left behind by a process that died: nobody answers.
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket file: %v", err)
	}
	if answers(path) {
		t.Fatal("the stale socket answers")
	}
	// Nothing answers, so a client says "not running"...
	if _, err := NewClient(path).Hello(t.Context()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Hello on a stale socket: %v, want ErrNotRunning", err)
	}
	// ...and Listen takes the path over.
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced socket: %v, %v", fi, err)
	}
	if !answers(path) {
		t.Error("the replacement socket does not answer")
	}
}

func TestListenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The runtime dir cannot be made under a file.
	if ln, err := Listen(filepath.Join(file, SocketName)); err == nil || errors.Is(err, ErrInUse) {
		t.Errorf("Listen under a file: %v, %v", ln, err)
	}
	// Something that is not a socket and cannot be removed is left alone.
	busy := filepath.Join(dir, SocketName)
	if err := os.MkdirAll(filepath.Join(busy, "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	if ln, err := Listen(busy); err == nil || errors.Is(err, ErrInUse) {
		t.Errorf("Listen over a folder: %v, %v", ln, err)
	}
	if _, err := os.Stat(filepath.Join(busy, "keep")); err != nil {
		t.Errorf("the folder's contents: %v", err)
	}
}

func TestClientNotRunning(t *testing.T) {
	c := NewClient(filepath.Join(t.TempDir(), "missing", SocketName))
	if _, err := c.Hello(t.Context()); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Hello: %v, want ErrNotRunning", err)
	}
	if _, err := c.Call(t.Context(), "status", nil); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Call: %v, want ErrNotRunning", err)
	}
}

func TestClientServer(t *testing.T) {
	reg, db := newRegistry(t)
	path, _ := startServer(t, reg)
	c := NewClient(path)
	ctx := t.Context()

	h, err := c.Hello(ctx)
	if err != nil || h != testHello {
		t.Fatalf("Hello: %+v, %v", h, err)
	}

	resp, err := c.Call(ctx, "status", nil)
	if err != nil {
		t.Fatal(err)
	}
	var st mcpserver.StatusResult
	if err := json.Unmarshal(resp.Result, &st); err != nil {
		t.Fatalf("status result %s: %v", resp.Result, err)
	}
	if !resp.OK || resp.Method != "status" || !strings.HasPrefix(resp.AuditID, "aud_") || resp.Error != "" ||
		st.Version != testVersion || st.Principal != "operator" || st.Endpoint != testHello.Endpoint {
		t.Errorf("status: %+v, %+v", resp, st)
	}

	// Hidden methods are the CLI's to call.
	resp, err = c.Call(ctx, "repository.register", map[string]string{"path": "/src/app"})
	if err != nil || !resp.OK {
		t.Fatalf("repository.register: %+v, %v", resp, err)
	}
	resp, err = c.Call(ctx, "token.list", map[string]bool{"all": true})
	if err != nil || !resp.OK || !strings.Contains(string(resp.Result), `"tokens"`) {
		t.Errorf("token.list: %+v, %v", resp, err)
	}

	// Denials are responses, not errors.
	for _, tc := range []struct {
		method string
		args   any
		want   store.Code
	}{
		{"no.such", nil, store.CodeMethodUnknown},
		{"repository.register", map[string]string{"path": "relative"}, store.CodeInvalidArgument},
		{"status", map[string]int{"unknown": 1}, store.CodeInvalidArgument},
		{"status", []int{1}, store.CodeInvalidArgument},
	} {
		resp, err := c.Call(ctx, tc.method, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		if resp.OK || resp.Error != tc.want || resp.Message == "" || resp.Result != nil || !strings.HasPrefix(resp.AuditID, "aud_") || resp.Method != tc.method {
			t.Errorf("%s %v: %+v, want %s", tc.method, tc.args, resp, tc.want)
		}
	}
	if _, err := c.Call(ctx, "status", func() {}); err == nil || errors.Is(err, ErrNotRunning) {
		t.Errorf("Call with arguments that cannot be encoded: %v", err)
	}

	// Every call ran as the operator over "rpc", and was audited.
	var recs []store.AuditRecord
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Limit: 100})
		return err
	})
	if len(recs) != 7 {
		t.Errorf("%d audit records, want 7", len(recs))
	}
	for _, r := range recs {
		if r.Transport != "rpc" || r.KeyID != "" {
			t.Errorf("audit record %+v", r)
		}
	}
}

// rawClient talks HTTP over the socket without Client's conveniences.
func rawClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
}

func TestServeBadRequests(t *testing.T) {
	reg, _ := newRegistry(t)
	path, _ := startServer(t, reg)
	hc := rawClient(path)

	for _, body := range []string{"not json", "", `[1,2]`} {
		resp, err := hc.Post("http://switchboard/v1/call", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var r Response
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || err != nil || r.OK || r.Error != mcpserver.CodeInvalidRequest {
			t.Errorf("body %q: HTTP %d, %+v, %v", body, resp.StatusCode, r, err)
		}
	}
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/v1/call", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/hello", http.StatusMethodNotAllowed},
		{http.MethodGet, "/v1/nothing", http.StatusNotFound},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, "http://switchboard"+tc.path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: HTTP %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestCheckPeer(t *testing.T) {
	reg, _ := newRegistry(t)
	s := NewServer(reg, func() Hello { return testHello }, nil, slog.New(slog.DiscardHandler))
	reached := 0
	h := s.checkPeer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}))
	me := os.Getuid()
	for _, tc := range []struct {
		name string
		uid  any // nil: no value in the context
		want int
	}{
		{"owner", me, http.StatusNoContent},
		{"another user", me + 1, http.StatusForbidden},
		{"unknown peer", -1, http.StatusForbidden},
		// Running as root, a missing value must not read as uid 0.
		{"no peer information", nil, http.StatusForbidden},
		{"not an int", "0", http.StatusForbidden},
	} {
		before := reached
		req := httptest.NewRequest(http.MethodGet, "/v1/hello", nil)
		if tc.uid != nil {
			v := tc.uid
			if u, ok := v.(int); ok {
				v = peer{uid: u, pid: -1}
			}
			req = req.WithContext(context.WithValue(req.Context(), peerKey{}, v))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.name, rec.Code, tc.want)
		}
		if ran := reached > before; ran != (tc.want == http.StatusNoContent) {
			t.Errorf("%s: handler ran: %v", tc.name, ran)
		}
	}
}

// A stranger on a real socket is answered 403 per request, the call never
// reaches the registry, the server keeps serving, and the client reports an
// error rather than "not running".
func TestStrangerRefused(t *testing.T) {
	reg, db := newRegistry(t)
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(reg, func() Hello { return testHello }, nil, slog.New(slog.DiscardHandler))
	connContext := s.http.ConnContext
	var strangers atomic.Bool // connections accepted while set are "another user's"
	strangers.Store(true)
	s.http.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		ctx = connContext(ctx, c)
		if strangers.Load() {
			return context.WithValue(ctx, peerKey{}, os.Getuid()+1)
		}
		return ctx
	}
	serve(t, s, ln)

	stranger := rawClient(path)
	for _, p := range []string{"/v1/call", "/v1/hello"} {
		resp, err := stranger.Post("http://switchboard"+p, "application/json", strings.NewReader(`{"method":"status"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("stranger's POST %s: HTTP %d, want 403", p, resp.StatusCode)
		}
	}
	// Client reports the refusal as an error, not as "not running".
	_, err = (&Client{http: stranger}).Call(t.Context(), "status", nil)
	if err == nil || errors.Is(err, ErrNotRunning) {
		t.Errorf("stranger's Call: %v, want an error other than ErrNotRunning", err)
	}
	var n int
	db.View(context.Background(), func(tx *store.Tx) error {
		c, err := tx.Counts(store.Scope{All: true})
		n = c.AuditRecords
		return err
	})
	if n != 0 {
		t.Errorf("a stranger's call reached the registry (%d audit records)", n)
	}
	// The server keeps serving: the owner, on a new connection, is served.
	strangers.Store(false)
	if resp, err := NewClient(path).Call(t.Context(), "status", nil); err != nil || !resp.OK {
		t.Errorf("owner after a stranger: %+v, %v", resp, err)
	}
}

func TestPeerUID(t *testing.T) {
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, ok := <-accepted
	if !ok {
		t.Fatal("Accept failed")
	}
	defer server.Close()
	if got := peerOf(server).uid; got != os.Getuid() {
		t.Errorf("peerUID of a real socket = %d, want %d", got, os.Getuid())
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := peerOf(a).uid; got != -1 {
		t.Errorf("peerUID of a pipe = %d, want -1", got)
	}
}

func TestResponseFor(t *testing.T) {
	ok := ResponseFor(mcpserver.Result{Method: "m", AuditID: "aud_1", Value: map[string]int{"n": 1}})
	if !ok.OK || string(ok.Result) != `{"n":1}` || ok.Error != "" {
		t.Errorf("ok: %+v", ok)
	}
	denied := ResponseFor(mcpserver.Result{Method: "m", AuditID: "aud_2", Err: store.Deny(store.CodeNotFound, "no such %s", "thing")})
	if denied.OK || denied.Error != store.CodeNotFound || denied.Message != "no such thing" || denied.Result != nil {
		t.Errorf("denied: %+v", denied)
	}
	failed := ResponseFor(mcpserver.Result{Method: "m", Err: io.ErrUnexpectedEOF})
	if failed.OK || failed.Error != store.CodeInternal || failed.Message == "" {
		t.Errorf("failed: %+v", failed)
	}
}

// A second launch asks the running program to show its window: the answer
// says whether it has one to show (a headless one has none).
func TestShow(t *testing.T) {
	for _, tt := range []struct {
		name  string
		show  func() bool
		shown bool
	}{
		{"window", func() bool { return true }, true},
		{"window gone", func() bool { return false }, false},
		{"headless", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := socketPath(t)
			ln, err := Listen(path)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			show := tt.show
			if show != nil {
				show = func() bool { calls++; return tt.show() }
			}
			reg, _ := newRegistry(t)
			serve(t, NewServer(reg, func() Hello { return testHello }, show, slog.New(slog.DiscardHandler)), ln)
			shown, err := NewClient(path).Show(t.Context())
			if err != nil || shown != tt.shown {
				t.Fatalf("Show: %v, %v; want %v", shown, err, tt.shown)
			}
			if tt.show != nil && calls != 1 {
				t.Errorf("the window's show ran %d times, want once", calls)
			}
		})
	}
}
