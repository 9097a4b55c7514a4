package main

import (
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
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/mcphttp"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Server names; serverDaemon (daemon.go) and serverMCPGo (peers.go) run in
// child processes.
const (
	serverSwitchboard = "switchboard"
	serverSDK         = "go-sdk"
	serverPlain       = "net/http"
	// clientOnly is the net/http server in a child process: what this
	// process spends on it is the client's share.
	clientOnly = "client-only"
)

// serverNames are the servers mcpbench knows, in table order.
func serverNames() []string {
	return []string{serverSwitchboard, serverSDK, serverPlain, serverDaemon, serverMCPGo}
}

const benchVersion = "mcpbench"

// target is a server under load: where to post and what to send besides
// the common headers.
type target struct {
	name  string
	url   string
	auth  string // Authorization header value, if any
	close func() error
	// pid is the server's process when it runs in a child process, else
	// 0: its CPU is then read from /proc and added to the cells'.
	pid int
	// memStats, when not nil, reads a child's allocation counters; a
	// child without it leaves the alloc columns of its cells empty.
	memStats func() (mallocs, bytes uint64, err error)
	// db is Switchboard's store, for the rows that set a direct store
	// read beside the same read over MCP.
	db *store.DB
	// reg and principal are Switchboard's registry and the client
	// token's principal, for the rows that call it without HTTP.
	reg       *mcpserver.Registry
	principal mcpserver.Principal
}

func startTarget(ctx context.Context, name string, env *runEnv) (*target, error) {
	switch name {
	case serverSwitchboard:
		return startSwitchboard(filepath.Join(env.dir, "state.db"), env.log)
	case serverSDK:
		return startHTTP(name, newSDKHandler(), env.log)
	case serverPlain:
		return startHTTP(name, newPlainHandler(), env.log)
	case serverDaemon:
		return startDaemonTarget(ctx, env.daemon.path)
	case serverMCPGo:
		return startMCPGo(env.peers.mcpGo)
	}
	return nil, fmt.Errorf("unknown server %q", name)
}

// newHTTPServer is the daemon's server (mcpserver.NewServer), so every
// target pays for the same one.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return mcphttp.NewServer(h, log)
}

// serve runs h on a fresh loopback port. The returned stop function shuts
// the server down and reports why it stopped, if not by being shut down.
func serve(h http.Handler, log *slog.Logger) (url string, stop func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := newHTTPServer(h, log)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}
	return "http://" + ln.Addr().String() + "/mcp", stop, nil
}

func startHTTP(name string, h http.Handler, log *slog.Logger) (*target, error) {
	url, stop, err := serve(h, log)
	if err != nil {
		return nil, err
	}
	return &target{name: name, url: url, close: stop}, nil
}

// startSwitchboard serves the product the way app/daemon does: a real store,
// the registry, the front layer on /mcp and /mcp/, and a client token with
// the agent capabilities on every repository.
func startSwitchboard(path string, log *slog.Logger) (*target, error) {
	return startSwitchboardWith(path, log, nil)
}

// startSwitchboardWith is startSwitchboard with setup, when not nil, run
// in the transaction that creates the client token: the workflow rows
// register a repository and queue their packets there.
func startSwitchboardWith(path string, log *slog.Logger, setup func(*store.Tx) error) (*target, error) {
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, err
	}
	return serveSwitchboard(db, log, setup, false)
}

// serveSwitchboard is startSwitchboardWith on a store already open, which
// it closes when the target closes, or when it fails. team makes it an
// instance of team mode as app/daemon starts one on PostgreSQL: its first
// heartbeat recorded, and it hears the other instances' signals.
func serveSwitchboard(db *store.DB, log *slog.Logger, setup func(*store.Tx) error, team bool) (*target, error) {
	var raw string
	var principal mcpserver.Principal
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		if setup != nil {
			if err := setup(tx); err != nil {
				return err
			}
		}
		var grants []store.Grant
		for _, c := range store.AgentCapabilities() {
			grants = append(grants, store.Grant{Capability: c, Repositories: []string{store.AllRepositories}})
		}
		tok, r, err := tx.CreateToken(store.TokenSpec{Label: "mcpbench", Kind: store.KindClient, Grants: grants})
		if err != nil {
			return err
		}
		raw, principal = r, mcpserver.TokenPrincipal(tok)
		return tx.SetSetting(mcpserver.SettingClientKeyID, tok.KeyID)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("create the client token: %w", err)
	}
	env := &benchEnv{}
	reg := mcpserver.New(db, mcpserver.Options{Version: benchVersion, Env: env, Log: log})
	if team {
		host, _ := os.Hostname()
		if _, err := reg.BeatInstance(context.Background(), store.InstanceBeat{Host: host, PID: os.Getpid(), Version: benchVersion, Started: time.Now()}); err != nil {
			db.Close()
			return nil, fmt.Errorf("the instance's first heartbeat: %w", err)
		}
		reg.HearOtherInstances()
	}
	h := mcphttp.NewHTTPHandler(reg, mcphttp.HTTPOptions{Version: benchVersion, Log: log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)
	url, stop, err := serve(mux, log)
	if err != nil {
		db.Close()
		return nil, err
	}
	env.endpoint = url
	return &target{
		name:      serverSwitchboard,
		url:       url,
		auth:      "Bearer " + raw,
		db:        db,
		reg:       reg,
		principal: principal,
		close: func() error {
			return errors.Join(stop(), db.Close())
		},
	}, nil
}

// benchEnv is the daemon's side of mcpserver.Env, reduced to what status
// reads: a running instance with its endpoint.
type benchEnv struct{ endpoint string }

func (e *benchEnv) Endpoint() string     { return e.endpoint }
func (e *benchEnv) Running() bool        { return true }
func (e *benchEnv) KeyringState() string { return "unavailable" }
func (e *benchEnv) ClientToken() (string, error) {
	return "", errors.New("mcpbench keeps no client token")
}
func (e *benchEnv) ClientTokenRotated(string) error { return nil }

// statusOut mirrors what Switchboard's status tool puts in
// structuredContent, so the baselines encode a result of the same shape and
// about the same size.
type statusOut struct {
	OK      bool         `json:"ok"`
	Method  string       `json:"method"`
	AuditID string       `json:"audit_id"`
	Result  statusResult `json:"result"`
}

type statusResult struct {
	Version       string       `json:"version"`
	Running       bool         `json:"running"`
	Endpoint      string       `json:"endpoint,omitempty"`
	Keyring       string       `json:"keyring"`
	SchemaVersion int          `json:"schema_version"`
	Counts        statusCounts `json:"counts"`
	Principal     string       `json:"principal"`
}

type statusCounts struct {
	Repositories int `json:"repositories"`
	Tokens       int `json:"tokens"`
	LiveTokens   int `json:"live_tokens"`
	AuditRecords int `json:"audit_records"`
}

// statusSource makes the baselines' results: a sequence stands in for the
// audit id, so each answer differs like Switchboard's do.
type statusSource struct{ seq atomic.Uint64 }

func (s *statusSource) next() statusOut {
	n := s.seq.Add(1)
	return statusOut{
		OK:      true,
		Method:  "status",
		AuditID: fmt.Sprintf("aud_%016x", n),
		Result: statusResult{
			Version:       benchVersion,
			Running:       true,
			Endpoint:      "http://127.0.0.1:49152/mcp",
			Keyring:       "unavailable",
			SchemaVersion: store.SchemaVersion(),
			Counts:        statusCounts{Tokens: 1, LiveTokens: 1, AuditRecords: int(n)},
			Principal:     "token 0123456789abcdef",
		},
	}
}

// newSDKHandler is a bare go-sdk server: stateless with JSON responses
// like Switchboard's, a typed tool, nothing in front.
func newSDKHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: benchVersion}, nil)
	src := &statusSource{}
	mcp.AddTool(server, &mcp.Tool{Name: "status", Description: "A status of Switchboard's size."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, statusOut, error) {
			return nil, src.next(), nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
	})
}

// plainHandler answers tools/call status with encoding/json and nothing
// else: no sessions, no schema, no middleware.
type plainHandler struct{ src statusSource }

func newPlainHandler() http.Handler { return &plainHandler{} }

type plainRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

type plainResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  plainResult     `json:"result"`
}

type plainResult struct {
	Content           []plainText `json:"content"`
	StructuredContent statusOut   `json:"structuredContent"`
}

type plainText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (h *plainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	var req plainRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, mcpserver.MaxBodyBytes)).Decode(&req); err != nil {
		http.Error(w, "body is not one JSON-RPC request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if req.JSONRPC != "2.0" || req.Method != "tools/call" || req.Params.Name != "status" {
		http.Error(w, "only tools/call status is served here", http.StatusNotFound)
		return
	}
	out := h.src.next()
	text, err := json.Marshal(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(plainResponse{
		JSONRPC: "2.0",
		ID:      req.ID,
		Result:  plainResult{Content: []plainText{{Type: "text", Text: string(text)}}, StructuredContent: out},
	})
}

// startChildPlain runs the net/http target in a child process (this same
// binary with -serve-plain), so that what this process allocates and spends
// while calling it is the client's alone.
func startChildPlain() (*target, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c, err := startChild(exe, "-serve-plain")
	if err != nil {
		return nil, err
	}
	// Its pid stays out of the target: this row is the client's share,
	// so the server's CPU must not be added to it.
	return &target{name: clientOnly, url: c.url, close: c.close}, nil
}

// serveChildPlain is the child's side of startChildPlain: it serves the
// net/http target, prints its URL and runs until its stdin closes.
func serveChildPlain(stdin io.Reader, stdout io.Writer) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	url, stop, err := serve(newPlainHandler(), log)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(stdout, url); err != nil {
		stop()
		return err
	}
	io.Copy(io.Discard, stdin)
	return stop()
}
