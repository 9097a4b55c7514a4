// Package control serves the registry on an owner-only Unix socket for the
// CLI, and is the CLI's client for it. Every request runs as the operator
// over the "rpc" transport, so the socket's permissions and the peer
// credential check are the whole of its authentication.
package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// SocketName is the socket's file name in the runtime dir.
const SocketName = "control.sock"

// maxRequestBytes bounds one control request.
const maxRequestBytes = 4 << 20

// ErrInUse is returned by Listen when another live process answers on the
// socket.
var ErrInUse = errors.New("control socket is in use by a running Switchboard")

// Listen creates the control socket at path, owner-only. Unix sockets stay in
// the file system after their process dies, so an existing one is removed
// only when nothing answers on it; a live one gives ErrInUse.
func Listen(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create runtime dir: %w", err)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, ErrInUse
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale control socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on control socket: %w", err)
	}
	if err := restrictSocket(path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict control socket: %w", err)
	}
	return ln, nil
}

// Request is one call on the socket.
type Request struct {
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// Response is the answer to a Request: the same shape an agent sees in
// structuredContent.
type Response struct {
	OK      bool            `json:"ok"`
	Method  string          `json:"method"`
	AuditID string          `json:"audit_id,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   store.Code      `json:"error,omitempty"`
	Message string          `json:"message,omitempty"`
}

// ResponseFor converts a registry result.
func ResponseFor(res mcpserver.Result) Response {
	out := Response{OK: res.Err == nil, Method: res.Method, AuditID: res.AuditID}
	if res.Err != nil {
		out.Error = res.Code()
		out.Message = res.Err.Error()
		var d *store.Denial
		if errors.As(res.Err, &d) {
			out.Message = d.Reason
		}
		return out
	}
	out.Result, _ = json.Marshal(res.Value)
	return out
}

// Hello is what GET /v1/hello answers: enough for a second start to say
// where the running one is.
type Hello struct {
	PID      int    `json:"pid"`
	Endpoint string `json:"endpoint"`
	Version  string `json:"version"`
}

type peerKey struct{}

// Shown is what POST /v1/show answers: whether the running program put its
// window in front (false when it runs without one, headless).
type Shown struct {
	Shown bool `json:"shown"`
}

// Server serves the registry on a control socket.
type Server struct {
	reg   *mcpserver.Registry
	hello func() Hello
	show  func() bool
	log   *slog.Logger
	http  *http.Server
}

// NewServer returns a server for reg; hello describes the running program,
// and show puts its window in front, reporting whether it has one (a
// second launch of the app asks for it).
func NewServer(reg *mcpserver.Registry, hello func() Hello, show func() bool, log *slog.Logger) *Server {
	s := &Server{reg: reg, hello: hello, show: show, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hello", s.serveHello)
	mux.HandleFunc("POST /v1/show", s.serveShow)
	mux.HandleFunc("POST /v1/call", s.serveCall)
	mux.HandleFunc("GET /v1/attach", s.serveAttach)
	s.http = &http.Server{
		Handler:           s.checkPeer(mux),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// Credentials are read once per connection; a stranger's connection
		// is answered 403 per request rather than failing Accept, which
		// would stop the whole server.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, peerKey{}, peerOf(c))
		},
	}
	return s
}

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting and waits for calls in flight, up to ctx.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// peer is who is at the other end of a connection: uid and pid -1 when
// they cannot be told.
type peer struct{ uid, pid int }

// peerOf reads the credentials of the process at the other end of a Unix
// socket, once per connection.
func peerOf(c net.Conn) peer {
	p := peer{uid: -1, pid: -1}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return p
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return p
	}
	raw.Control(func(fd uintptr) {
		if u, err := getPeerUID(int(fd)); err == nil {
			p.uid = u
		}
		p.pid = getPeerPID(int(fd))
	})
	return p
}

// checkPeer lets in the owner only, and of the owner's processes none that
// an agent started: an agent runs as the person, so the uid alone would let
// it mint itself an operator token. Whatever it did to leave its process
// group, its process set (supervisor.Owner) still holds it.
func (s *Server) checkPeer(next http.Handler) http.Handler {
	me := ownerUID()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A connection whose peer could not be told (no value, or -1) is
		// refused: the zero value would be root's uid.
		p, ok := r.Context().Value(peerKey{}).(peer)
		if !ok || p.uid != me {
			http.Error(w, "control socket: only the owner may connect", http.StatusForbidden)
			return
		}
		if sv := s.reg.Agents(); sv != nil && p.pid > 0 {
			if id, ok := sv.Owner(p.pid); ok {
				http.Error(w, "control socket: refused: the caller runs inside agent session "+id+
					"; an agent calls Switchboard with its own MCP token, never the person's control socket", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) serveHello(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.hello())
}

func (s *Server) serveShow(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Shown{Shown: s.show != nil && s.show()})
}

func (s *Server) serveCall(w http.ResponseWriter, r *http.Request) {
	var req Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err := dec.Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, Response{Error: mcpserver.CodeInvalidRequest, Message: "request is not a JSON call object"})
		return
	}
	res := s.reg.Invoke(r.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, req.Method, req.Args)
	writeJSON(w, http.StatusOK, ResponseFor(res))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Client talks to a running Switchboard over its control socket.
type Client struct {
	http *http.Client
}

// NewClient returns a client for the socket at path. It does not connect
// until the first call.
func NewClient(path string) *Client {
	return &Client{http: &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", path)
			},
		},
	}}
}

// ErrNotRunning is returned when nothing answers on the socket.
var ErrNotRunning = errors.New("switchboard is not running")

// Hello asks the running program who it is.
func (c *Client) Hello(ctx context.Context) (Hello, error) {
	var h Hello
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://switchboard/v1/hello", nil)
	if err := c.do(req, &h); err != nil {
		return Hello{}, err
	}
	return h, nil
}

// Show asks the running program to put its window in front; shown is false
// when it runs without one.
func (c *Client) Show(ctx context.Context) (shown bool, err error) {
	var out Shown
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://switchboard/v1/show", nil)
	if err := c.do(req, &out); err != nil {
		return false, err
	}
	return out.Shown, nil
}

// Call runs method with args (any JSON-encodable value, or nil) and returns
// the response. A denial is a Response with OK false, not an error; errors
// are for the socket itself.
func (c *Client) Call(ctx context.Context, method string, args any) (Response, error) {
	body := Request{Method: method}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return Response{}, fmt.Errorf("encode arguments of %s: %w", method, err)
		}
		body.Args = b
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://switchboard/v1/call", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	var resp Response
	if err := c.do(req, &resp); err != nil {
		return Response{}, err
	}
	return resp, nil
}

func (c *Client) do(req *http.Request, out any) error {
	resp, err := c.http.Do(req)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && (errno == syscall.ENOENT || errno == syscall.ECONNREFUSED) {
			return ErrNotRunning
		}
		return fmt.Errorf("control socket: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("control socket: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("control socket: decode answer: %w", err)
	}
	return nil
}
