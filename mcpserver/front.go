package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/store"
)

// MaxBodyBytes bounds one JSON-RPC request body.
const MaxBodyBytes = 4 << 20

// Instructions is what initialize tells every agent: the canonical workflow,
// short enough to sit in a system prompt.
const Instructions = `You are connected to Switchboard, the local hub that hands out work for this machine's repositories.
Workflow: call tools/list (or tools_search); session_report kind ready with your repository_id gives your session_id (a session token has one already); then work_await_packet with repository_id and session_id claims a packet under a lease.
Call work_ack to start, artifact_publish for each expected artifact, then work_complete (or work_release with a reason).
Every call after a claim carries packet_id, session_id and lease_id; lease_lost means the packet is no longer yours: stop and await again.
Report with session_report (ready, heartbeat, question, escalate); a question's answer arrives through session_await_answer.
Terminal output is never read as state: only these tools change it.`

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
	reg        *Registry
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
	principal    Principal
	transport    Transport
	repositoryID string
	// request is the context of the HTTP request (or SSE stream) the call
	// came on. The SDK does not pass its end to handlers of pre-2026
	// protocol versions; handlers link to it themselves, so that a client
	// that goes away stops its long poll.
	request context.Context
}

// NewHTTPHandler returns the handler for /mcp, /mcp/sse and /mcp/messages.
func NewHTTPHandler(reg *Registry, opts HTTPOptions) *HTTPHandler {
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
	case store.CodeParseError:
		return -32700
	case store.CodeInvalidRequest, store.CodePayloadTooLarge:
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
	case store.CodeOriginForbidden, store.CodeHostForbidden:
		return http.StatusForbidden
	case store.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case store.CodeMethodUnknown:
		return http.StatusNotFound
	case store.CodeInternal:
		return http.StatusInternalServerError
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
		writeError(w, nil, store.Deny(store.CodeHostForbidden, "Host must be a loopback name or address"))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		writeError(w, nil, store.Deny(store.CodeOriginForbidden, "Origin is not loopback and not on the allow list"))
		return
	}
	switch {
	case r.URL.Path == PathMCP && r.Method == http.MethodPost,
		r.URL.Path == PathSSE && r.Method == http.MethodPost:
		h.servePOST(w, r, TransportMCP)
	case r.URL.Path == PathMCP && r.Method == http.MethodGet && legacyClient(r),
		r.URL.Path == PathSSE && r.Method == http.MethodGet:
		h.serveSSEStream(w, r)
	case r.URL.Path == PathMessages && r.Method == http.MethodPost:
		h.serveSSEMessage(w, r)
	case r.URL.Path == PathEvents && r.Method == http.MethodGet:
		h.serveEvents(w, r)
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
func (h *HTTPHandler) authenticate(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	if len(r.Header.Values("Authorization")) > 1 {
		// Which one is the credential would depend on who reads the
		// request: a proxy may check one and we another.
		writeError(w, nil, store.Deny(store.CodeTokenMalformed, "send one Authorization header"))
		return Principal{}, false
	}
	raw, ok := bearerToken(r)
	if !ok {
		writeError(w, nil, store.Deny(store.CodeTokenMissing, "send Authorization: Bearer <token>"))
		return Principal{}, false
	}
	p, err := h.reg.Authenticate(raw)
	if err != nil {
		var d *store.Denial
		if !errors.As(err, &d) {
			h.log.Error("token check failed", "err", err)
			d = store.Deny(store.CodeInternal, "token check failed")
		}
		writeError(w, nil, d)
		return Principal{}, false
	}
	return p, true
}

// watchStream starts the watcher of p for a long-lived stream about to open
// (see Registry.Alive): the stream ends when the returned context does, and
// calls the returned function when it ends. When p is no longer live
// already (a token whose session has ended is still accepted by
// authentication) it answers the refusal itself and reports false: a
// client answered 200 and cut off at once would only open the stream again.
func (h *HTTPHandler) watchStream(w http.ResponseWriter, r *http.Request, p Principal) (context.Context, context.CancelFunc, bool) {
	alive, stop := h.reg.Alive(r.Context(), p)
	if alive.Err() == nil {
		return alive, stop, true
	}
	stop()
	var d *store.Denial
	switch cause := context.Cause(alive); {
	case errors.As(cause, &d):
		writeError(w, nil, d)
	case r.Context().Err() == nil:
		h.log.Error("token check failed", "err", cause)
		writeError(w, nil, store.Deny(store.CodeInternal, "token check failed"))
	}
	return nil, nil, false
}

// envelope is the part of a JSON-RPC message the front layer reads.
type envelope struct {
	ID     json.RawMessage
	Method *string
	Params envelopeParams
}

// envelopeParams are the params fields the front layer reads.
type envelopeParams struct {
	RepositoryID string          `json:"repository_id"`
	URI          string          `json:"uri"`
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	Meta         struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
}

// maxNesting bounds how deep a request's JSON may nest. The SDK refuses
// deeper than 1000 with a plain-text answer; refusing here gives the
// client a JSON-RPC error instead, and no legitimate call nests this deep.
const maxNesting = 64

// methodsNeedingParams are the methods whose params object is required.
var methodsNeedingParams = []string{"tools/call", "resources/read", "prompts/get"}

// mirroredHeaders are the headers that carry, outside the body, what the
// body says: the protocol version, and from 2026-07-28 the method and the
// tool, resource or prompt name. Each may be sent once.
var mirroredHeaders = []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"}

// codeHeaderMismatch is the JSON-RPC code of the 2026-07-28 revision for
// headers that are missing, malformed, or disagree with the body.
const codeHeaderMismatch = -32020

// readMessage reads and checks one JSON-RPC request body, answering the
// transport errors (payload_too_large, parse_error, invalid_request,
// method_unknown) itself.
func (h *HTTPHandler) readMessage(w http.ResponseWriter, r *http.Request) ([]byte, envelope, bool) {
	if r.ContentLength > MaxBodyBytes {
		// Refused from the declared length: a client that declares 10 GiB
		// and sends nothing would otherwise hold the request until the
		// server's ReadTimeout, and then get invalid_request.
		writeError(w, nil, store.Deny(store.CodePayloadTooLarge, "request body exceeds %d bytes", MaxBodyBytes))
		return nil, envelope{}, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, nil, store.Deny(store.CodePayloadTooLarge, "request body exceeds %d bytes", MaxBodyBytes))
			return nil, envelope{}, false
		}
		writeError(w, nil, store.Deny(store.CodeInvalidRequest, "reading body: %v", err))
		return nil, envelope{}, false
	}
	msg, d := parseEnvelope(body)
	if d != nil {
		writeError(w, msg.ID, d)
		return nil, msg, false
	}
	for _, k := range mirroredHeaders {
		// go-sdk checks the first value against the body; a gateway in
		// front may route on another, or take the era from another.
		if len(r.Header.Values(k)) > 1 {
			writeRPCError(w, http.StatusBadRequest, msg.ID, codeHeaderMismatch, k+" is sent more than once",
				map[string]any{"code": store.CodeInvalidRequest})
			return nil, msg, false
		}
	}
	if d := checkProtocolVersion(r.Header.Get("MCP-Protocol-Version")); d != nil {
		writeVersionError(w, msg.ID, r.Header.Get("MCP-Protocol-Version"))
		return nil, msg, false
	}
	return body, msg, true
}

// parseEnvelope checks that body is one JSON-RPC 2.0 request or
// notification the server knows, strictly enough that the SDK behind will
// not answer it with plain text: member names match exactly (encoding/json
// would match "Method"), an id is a string or an integer, requests have
// ids, params is an object, nesting is bounded. The returned envelope's ID
// is set only when it is a valid id, so errors echo nothing else.
func parseEnvelope(body []byte) (envelope, *store.Denial) {
	var msg envelope
	if nestingDepth(body) > maxNesting {
		return msg, store.Deny(store.CodeInvalidRequest, "JSON nests deeper than %d levels", maxNesting)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return msg, store.Deny(store.CodeInvalidRequest, "body must be one JSON-RPC request object")
		}
		return msg, store.Deny(store.CodeParseError, "body is not valid JSON")
	}
	id, hasID := top["id"]
	if hasID {
		if !validID(id) {
			return msg, store.Deny(store.CodeInvalidRequest, "id must be a string or an integer")
		}
		msg.ID = id
	}
	var method string
	if string(top["jsonrpc"]) != `"2.0"` || json.Unmarshal(top["method"], &method) != nil || method == "" {
		return msg, store.Deny(store.CodeInvalidRequest, `body must be a JSON-RPC 2.0 request with "method"`)
	}
	msg.Method = &method
	if !hasID && !strings.HasPrefix(method, "notifications/") {
		return msg, store.Deny(store.CodeInvalidRequest, "%s is a request and needs an id", method)
	}
	if !slices.Contains(knownMethods, method) {
		return msg, store.Deny(store.CodeMethodUnknown, "unknown JSON-RPC method %q", method)
	}
	params, hasParams := top["params"]
	if hasParams && string(params) != "null" {
		if len(params) == 0 || params[0] != '{' {
			return msg, store.Deny(store.CodeInvalidRequest, "params must be an object")
		}
		if err := json.Unmarshal(params, &msg.Params); err != nil {
			return msg, store.Deny(store.CodeInvalidRequest, "params: %v", err)
		}
	} else if slices.Contains(methodsNeedingParams, method) {
		return msg, store.Deny(store.CodeInvalidRequest, "%s needs params", method)
	}
	if method == "resources/read" && !printableURI(msg.Params.URI) {
		// go-sdk v1.8.0 quotes a not-found URI with Go's %q into JSON: a
		// control character or invalid UTF-8 makes it drop the answer.
		return msg, store.Deny(store.CodeInvalidRequest, "params.uri must be printable UTF-8")
	}
	return msg, nil
}

// maxIntID bounds an integer JSON-RPC id: go-sdk v1.8.0 decodes ids as
// float64, so a larger one would come back as another number (2^63-1 as
// -2^63), and the client would never match its answer.
const maxIntID = 1 << 53

// validID reports whether a JSON-RPC id is a string or an integer the SDK
// answers faithfully: within ±2^53, where every integer is a float64.
func validID(id json.RawMessage) bool {
	if len(id) > 0 && id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -maxIntID <= n && n <= maxIntID
}

func printableURI(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// nestingDepth returns how deep arrays and objects nest in b, skipping
// strings; it stops counting past maxNesting.
func nestingDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > maxNesting {
					return deepest
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// checkProtocolVersion refuses an MCP-Protocol-Version header naming a
// version this server does not speak, older or later: the SDK would answer
// an older one in plain text, and take any string that sorts after
// 2026-07-28 ("21", "2099-01-01") for that revision and hold it to its
// header rules before refusing it.
func checkProtocolVersion(v string) *store.Denial {
	if v == "" || slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return nil
	}
	return store.Deny(store.CodeInvalidRequest, "unsupported MCP-Protocol-Version %q", v)
}

// modernEra is the first revision whose requests mirror their method and
// name into headers.
const modernEra = "2026-07-28"

// checkMirroredHeaders holds a Streamable HTTP request of the 2026-07-28
// revision (by its MCP-Protocol-Version header or its _meta) to that
// revision's header rules,
// before the SDK does, so that the refusal carries our data.code and the
// request's id (go-sdk answers a notification's mismatch without an id):
// the header and _meta name the same version, Mcp-Method is the body's
// method, and Mcp-Name the tool or prompt name or resource URI of the calls
// that have one. A gateway may route on the headers while the server runs
// the body; a request whose two disagree goes nowhere.
func checkMirroredHeaders(h http.Header, msg envelope) (int64, string) {
	version, meta := h.Get("MCP-Protocol-Version"), msg.Params.Meta.ProtocolVersion
	if version < modernEra && meta == "" {
		return 0, ""
	}
	switch {
	case meta != "" && version != meta:
		return codeHeaderMismatch, fmt.Sprintf("MCP-Protocol-Version header %q does not match the body's _meta version %q", version, meta)
	case meta == "":
		return -32602, "a " + modernEra + " request carries its protocol version in params._meta"
	}
	if got := h.Get("Mcp-Method"); got != *msg.Method {
		return codeHeaderMismatch, fmt.Sprintf("Mcp-Method header %q does not match the body's method %q", got, *msg.Method)
	}
	var want string
	switch *msg.Method {
	case "tools/call", "prompts/get":
		want = msg.Params.Name
	case "resources/read":
		want = msg.Params.URI
	default:
		return 0, ""
	}
	got, ok := decodeHeaderValue(h.Get("Mcp-Name"))
	if !ok || got != want {
		return codeHeaderMismatch, fmt.Sprintf("Mcp-Name header %q does not match the body's %q", h.Get("Mcp-Name"), want)
	}
	return 0, ""
}

// decodeHeaderValue undoes the =?base64?…?= form a client uses for a name
// that is not printable ASCII.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// writeVersionError answers an unsupported protocol version with -32022
// and the supported list, so a client can retry with one of them.
func writeVersionError(w http.ResponseWriter, id json.RawMessage, requested string) {
	writeRPCError(w, http.StatusBadRequest, id, -32022, "unsupported protocol version", map[string]any{
		"code":      store.CodeInvalidRequest,
		"supported": mcp.SupportedProtocolVersions(),
		"requested": requested,
	})
}

// servePOST answers one JSON-RPC request in the response body.
func (h *HTTPHandler) servePOST(w http.ResponseWriter, r *http.Request, t Transport) {
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	body, msg, ok := h.readMessage(w, r)
	if !ok {
		return
	}
	if code, why := checkMirroredHeaders(r.Header, msg); code != 0 {
		writeRPCError(w, http.StatusBadRequest, msg.ID, code, why, map[string]any{"code": store.CodeInvalidRequest})
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
	if t == TransportMCP && r.Header.Get(TransportHeader) == "stdio" {
		t = TransportMCPStdio
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
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
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
	return h.reg.allowedOrigin(origin)
}
