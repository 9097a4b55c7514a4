package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// HTTPOptions configure the MCP HTTP handler.
type HTTPOptions struct {
	// AllowOrigins are browser origins accepted besides loopback ones, as
	// "scheme://host[:port]".
	AllowOrigins []string
	Version      string
	Log          *slog.Logger
}

// HTTPHandler serves MCP over HTTP in front of go-sdk: it answers what the
// SDK does not answer our way (Host and Origin, bearer tokens, malformed
// bodies, unknown methods) and hands the rest to a stateless SDK server
// whose tools call the registry.
type HTTPHandler struct {
	// noFastPath sends every tools/call through the SDK (tests compare).
	noFastPath bool
	reg        *mcpserver.Registry
	opts       HTTPOptions
	log        *slog.Logger
	sdk        http.Handler
	sse        *sseSessions
}

// callerKey carries the authenticated caller from the front layer, through
// the SDK, to the tool handlers.
type callerKey struct{}

// caller is who called, over which transport, and the repository the
// request's params named (tools/list and tools/call take a non-standard
// params.repository_id that scopes them).
type caller struct {
	principal    mcpserver.Principal
	transport    mcpserver.Transport
	repositoryID string
	// request is the context of the HTTP request (or SSE stream) the call
	// came on. The SDK does not pass its end to handlers of pre-2026
	// protocol versions; handlers link to it themselves, so that a client
	// that goes away stops its long poll.
	request context.Context
	// unavailable is set by a handler whose call failed with
	// store_unavailable, for dispatch to answer 503: the SDK writes
	// every answer it makes with 200.
	unavailable *atomic.Bool
}

// storeUnavailable reports whether res failed because the shared database
// is away, and tells the front layer to answer 503.
func (c caller) storeUnavailable(res *mcpserver.Result) bool {
	if res.Code() != store.CodeStoreUnavailable {
		return false
	}
	if c.unavailable != nil {
		c.unavailable.Store(true)
	}
	return true
}

// NewHTTPHandler returns the handler for /mcp, /mcp/sse and /mcp/messages.
func NewHTTPHandler(reg *mcpserver.Registry, opts HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{reg: reg, opts: opts, log: opts.Log}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.sdk = newSDKHandler(reg, opts.Version)
	h.sse = newSSESessions()
	return h
}

// jsonrpcCode maps one of our codes to the JSON-RPC error code it is sent
// with.
func jsonrpcCode(c store.Code) int64 {
	switch c {
	case mcpserver.CodeParseError:
		return -32700
	case mcpserver.CodeInvalidRequest, mcpserver.CodePayloadTooLarge:
		return -32600
	case store.CodeMethodUnknown:
		return -32601
	default:
		return -32001
	}
}

func httpStatus(c store.Code) int {
	switch c {
	case store.CodeTokenMissing, store.CodeTokenMalformed, store.CodeTokenInvalid, store.CodeTokenRevoked, store.CodeTokenExpired:
		return http.StatusUnauthorized
	case mcpserver.CodeOriginForbidden, mcpserver.CodeHostForbidden:
		return http.StatusForbidden
	case mcpserver.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case store.CodeMethodUnknown:
		return http.StatusNotFound
	case store.CodeInternal:
		return http.StatusInternalServerError
	case store.CodeStoreUnavailable:
		// Nothing wrong with the request: the shared database is away,
		// and the same call may work in a moment.
		return http.StatusServiceUnavailable
	default:
		return http.StatusBadRequest
	}
}

// writeError answers with a JSON-RPC error object whose data.code is ours.
func writeError(w http.ResponseWriter, id json.RawMessage, d *store.Denial) {
	if d.Code.IsTokenDenial() {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	}
	writeRPCError(w, httpStatus(d.Code), id, jsonrpcCode(d.Code), d.Reason, map[string]any{"code": d.Code})
}

// writeRPCError writes one JSON-RPC error response. data carries our code
// ("code") and whatever else the client needs to act on the error.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, message string, data map[string]any) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": message, "data": data},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	w.Write(body)
}

// knownMethods are the JSON-RPC methods handed to the SDK; anything else is
// method_unknown before it gets there.
var knownMethods = []string{
	"initialize", "ping", "server/discover",
	"tools/list", "tools/call",
	"resources/list", "resources/read", "resources/templates/list",
	"prompts/list", "prompts/get", "logging/setLevel",
	"notifications/initialized", "notifications/cancelled", "notifications/progress",
	"notifications/roots/list_changed",
}

// Paths served.
const (
	PathMCP      = "/mcp"
	PathSSE      = "/mcp/sse"
	PathMessages = "/mcp/messages"
)

// TransportHeader names the transport a bridge carried a request over.
// "stdio" (from `switchboard mcp --stdio`) records the call as mcp-stdio.
const TransportHeader = "X-Switchboard-Transport"

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		writeError(w, nil, store.Deny(mcpserver.CodeHostForbidden, "Host must be a loopback name or address"))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		writeError(w, nil, store.Deny(mcpserver.CodeOriginForbidden, "Origin is not loopback and not on the allow list"))
		return
	}
	switch {
	case r.URL.Path == PathMCP && r.Method == http.MethodPost,
		r.URL.Path == PathSSE && r.Method == http.MethodPost:
		h.servePOST(w, r, mcpserver.TransportMCP)
	case r.URL.Path == PathMCP && r.Method == http.MethodGet && legacyClient(r),
		r.URL.Path == PathSSE && r.Method == http.MethodGet:
		h.serveSSEStream(w, r)
	case r.URL.Path == PathMessages && r.Method == http.MethodPost:
		h.serveSSEMessage(w, r)
	case r.URL.Path == PathEvents && r.Method == http.MethodGet:
		h.serveEvents(w, r)
	case strings.HasPrefix(r.URL.Path, supervisor.ClaudeHookPath):
		h.serveClaudeHook(w, r)
	case r.URL.Path == PathEvents:
		w.Header().Set("Allow", "GET")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	case r.URL.Path == PathMCP || r.URL.Path == PathSSE || r.URL.Path == PathMessages:
		// A modern client's GET (the standalone stream) and DELETE (session
		// end) belong to stateful sessions, which this server does not keep.
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}

// legacyClient reports whether a GET on /mcp comes from a 2024-11-05 HTTP+SSE
// client: modern clients send a protocol version or a session id.
func legacyClient(r *http.Request) bool {
	return r.Header.Get("MCP-Protocol-Version") == "" && r.Header.Get("Mcp-Session-Id") == ""
}

// authenticate checks the bearer token and answers 401 itself when it fails.
func (h *HTTPHandler) authenticate(w http.ResponseWriter, r *http.Request) (mcpserver.Principal, bool) {
	if len(r.Header.Values("Authorization")) > 1 {
		// Which one is the credential would depend on who reads the
		// request: a proxy may check one and we another.
		writeError(w, nil, store.Deny(store.CodeTokenMalformed, "send one Authorization header"))
		return mcpserver.Principal{}, false
	}
	scheme, raw, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if raw = strings.TrimSpace(raw); raw == "" || !strings.EqualFold(scheme, "Bearer") {
		writeError(w, nil, store.Deny(store.CodeTokenMissing, "send Authorization: Bearer <token>"))
		return mcpserver.Principal{}, false
	}
	p, err := h.reg.Authenticate(r.Context(), raw)
	if err != nil {
		writeError(w, nil, h.tokenCheckFailed(err))
		return mcpserver.Principal{}, false
	}
	return p, true
}

// tokenCheckFailed is the answer to a token check that failed with err: its
// own denial, store_unavailable while the shared database is away (the
// same request may work in a moment), else an internal error, logged.
func (h *HTTPHandler) tokenCheckFailed(err error) *store.Denial {
	var d *store.Denial
	switch {
	case errors.As(err, &d):
		return d
	case store.CodeOf(err) == store.CodeStoreUnavailable:
		h.log.Warn("token check failed", "err", err)
		return store.Deny(store.CodeStoreUnavailable, "the token could not be checked: the shared database did not answer; try again")
	default:
		h.log.Error("token check failed", "err", err)
		return store.Deny(store.CodeInternal, "token check failed")
	}
}

// watchStream starts the watcher of p for a long-lived stream about to open
// (see Registry.Alive): the stream ends when the returned context does, and
// calls the returned function when it ends. When p is no longer live
// already (a token whose session has ended is still accepted by
// authentication) it answers the refusal itself and reports false: a
// client answered 200 and cut off at once would only open the stream again.
func (h *HTTPHandler) watchStream(w http.ResponseWriter, r *http.Request, p mcpserver.Principal) (context.Context, context.CancelFunc, bool) {
	alive, stop := h.reg.Alive(r.Context(), p)
	if alive.Err() == nil {
		return alive, stop, true
	}
	stop()
	var d *store.Denial
	// A client that went away is answered nothing.
	if cause := context.Cause(alive); errors.As(cause, &d) || r.Context().Err() == nil {
		writeError(w, nil, h.tokenCheckFailed(cause))
	}
	return nil, nil, false
}

// servePOST answers one JSON-RPC request in the response body.
func (h *HTTPHandler) servePOST(w http.ResponseWriter, r *http.Request, t mcpserver.Transport) {
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	body, msg, ok := h.readMessage(w, r)
	if !ok {
		return
	}
	if code, why := checkMirroredHeaders(r.Header, msg); code != 0 {
		writeRPCError(w, http.StatusBadRequest, msg.ID, code, why, map[string]any{"code": mcpserver.CodeInvalidRequest})
		return
	}
	if v := r.Header.Get("Mcp-Name"); strings.HasPrefix(v, "=?base64?") {
		// Checked above; go-sdk v1.8.0 compares the encoded form itself.
		name, _ := decodeHeaderValue(v)
		r.Header.Set("Mcp-Name", name)
	}
	// The header is an audit label, never a credential: any client may
	// send it, and it grants and removes nothing. Permissions come from the
	// token alone, and mcp-stdio is an MCP transport like mcp (hidden
	// methods fail closed on both).
	if t == mcpserver.TransportMCP && r.Header.Get(TransportHeader) == "stdio" {
		t = mcpserver.TransportMCPStdio
	}
	c := caller{principal: p, transport: t, repositoryID: msg.Params.RepositoryID}
	if h.fastToolCall(w, r, msg, c) {
		return
	}
	h.dispatch(w, r, body, c)
}

// dispatch hands a checked request to the SDK with the caller attached.
func (h *HTTPHandler) dispatch(w http.ResponseWriter, r *http.Request, body []byte, c caller) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	// The SDK insists on both media types; a client that accepts JSON alone
	// is served JSON anyway.
	r.Header.Set("Accept", "application/json, text/event-stream")
	// The body has parsed as JSON; curl's default form type (or none) is
	// not worth refusing a person for. Browsers cannot reach this far
	// without a bearer header, which needs a preflight.
	r.Header.Set("Content-Type", "application/json")
	c.request = r.Context()
	c.unavailable = new(atomic.Bool)
	w = &statusWriter{ResponseWriter: w, unavailable: c.unavailable}
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// statusWriter answers 503 instead of the SDK's 200 when the call's
// handler failed with store_unavailable: a client, a proxy or a retry
// loop that looks at the status alone must see that the request may be
// sent again, not that it succeeded. The handler runs before the SDK
// writes the answer (JSON responses are written whole), so the flag is
// set by then.
type statusWriter struct {
	http.ResponseWriter
	unavailable *atomic.Bool
	wrote       bool
}

func (s *statusWriter) WriteHeader(status int) {
	if !s.wrote && status == http.StatusOK && s.unavailable.Load() {
		status = http.StatusServiceUnavailable
		s.Header().Set("Retry-After", "1")
	}
	s.wrote = true
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.wrote {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection underneath.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush passes the SDK's flushes on (its streamed answers need them).
func (s *statusWriter) Flush() {
	if !s.wrote {
		s.WriteHeader(http.StatusOK)
	}
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface. Anything else may be a DNS-rebinding page.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	if slices.Contains(h.opts.AllowOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Path == "" && loopbackHost(u.Host) {
		return true
	}
	return h.reg.AllowedOrigin(origin)
}
