package mcpserver

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
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/store"
)

// MaxBodyBytes bounds one JSON-RPC request body.
const MaxBodyBytes = 4 << 20

// Instructions is what initialize tells every agent: the canonical workflow,
// short enough to sit in a system prompt.
const Instructions = `You are connected to Switchboard, the local hub that hands out work for this machine's repositories.
Workflow: call tools/list (or tools_search), then work_await_packet with your repository_id and session_id to claim a packet under a lease.
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
	reg  *Registry
	opts HTTPOptions
	log  *slog.Logger
	sdk  http.Handler
}

type principalKey struct{}

// NewHTTPHandler returns the handler for /mcp.
func NewHTTPHandler(reg *Registry, opts HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{reg: reg, opts: opts, log: opts.Log}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, m := range reg.Methods() {
		if m.Flags&Internal != 0 {
			continue
		}
		server.AddTool(toolFor(m), h.toolHandler(m))
	}
	server.AddReceivingMiddleware(h.filterToolsList, h.acceptMethodNames)
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// Our front layer bounds the body and checks Host and Origin with
		// codes the SDK does not give.
		MaxRequestBodyBytes:        -1,
		DisableLocalhostProtection: true,
	})
	// The SDK passes a bearer token's info to tool handlers only through its
	// own middleware; the principal we authenticated rides along in Extra.
	h.sdk = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		p, ok := ctx.Value(principalKey{}).(Principal)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: p.KeyID, Extra: map[string]any{"principal": p}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return h
}

func toolFor(m *Method) *mcp.Tool {
	ro := m.Flags&ReadOnly != 0
	f := false
	return &mcp.Tool{
		Name:        ToolName(m.Name),
		Title:       m.Name,
		Description: m.Description,
		InputSchema: m.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint: ro,
			// Switchboard's tools change only Switchboard's own state.
			DestructiveHint: &f,
			OpenWorldHint:   &f,
			IdempotentHint:  ro,
		},
	}
}

// jsonrpcErrorCodes maps our codes to JSON-RPC error codes.
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
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if d.Code.IsTokenDenial() {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    jsonrpcCode(d.Code),
			"message": d.Reason,
			"data":    map[string]any{"code": d.Code},
		},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(httpStatus(d.Code))
	w.Write(body)
}

// knownMethods are the JSON-RPC methods handed to the SDK; anything else is
// method_unknown before it gets there.
var knownMethods = []string{
	"initialize", "ping", "tools/list", "tools/call",
	"notifications/initialized", "notifications/cancelled", "notifications/progress",
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		writeError(w, nil, store.Deny(store.CodeHostForbidden, "Host must be a loopback name or address"))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		writeError(w, nil, store.Deny(store.CodeOriginForbidden, "Origin is not loopback and not on the allow list"))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	raw, ok := bearerToken(r)
	if !ok {
		writeError(w, nil, store.Deny(store.CodeTokenMissing, "send Authorization: Bearer <token>"))
		return
	}
	var tok store.Token
	err := h.reg.db.View(func(tx *store.Tx) error {
		var err error
		tok, err = tx.Authenticate(raw)
		return err
	})
	if err != nil {
		var d *store.Denial
		if !errors.As(err, &d) {
			h.log.Error("token check failed", "err", err)
			d = store.Deny(store.CodeInternal, "token check failed")
		}
		writeError(w, nil, d)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, nil, store.Deny(store.CodePayloadTooLarge, "request body exceeds %d bytes", MaxBodyBytes))
			return
		}
		writeError(w, nil, store.Deny(store.CodeInvalidRequest, "reading body: %v", err))
		return
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			writeError(w, nil, store.Deny(store.CodeInvalidRequest, "body must be one JSON-RPC request object"))
			return
		}
		writeError(w, nil, store.Deny(store.CodeParseError, "body is not valid JSON"))
		return
	}
	switch {
	case msg.JSONRPC != "2.0" || msg.Method == nil:
		writeError(w, msg.ID, store.Deny(store.CodeInvalidRequest, `body must be a JSON-RPC 2.0 request with "method"`))
		return
	case !slices.Contains(knownMethods, *msg.Method):
		writeError(w, msg.ID, store.Deny(store.CodeMethodUnknown, "unknown JSON-RPC method %q", *msg.Method))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	// The SDK insists on both media types; a client that accepts JSON alone
	// is served JSON anyway.
	r.Header.Set("Accept", "application/json, text/event-stream")
	// The body has parsed as JSON; curl's default form type (or none) is
	// not worth refusing a person for. Browsers cannot reach this far
	// without a bearer header, which needs a preflight.
	r.Header.Set("Content-Type", "application/json")
	ctx := context.WithValue(r.Context(), principalKey{}, TokenPrincipal(tok))
	h.sdk.ServeHTTP(w, r.WithContext(ctx))
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
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return loopbackHost(u.Host)
}

func principalFrom(req *mcp.CallToolRequest) (Principal, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return Principal{}, false
	}
	p, ok := req.Extra.TokenInfo.Extra["principal"].(Principal)
	return p, ok
}

// toolHandler calls m through the registry and shapes the result as the spec
// wants: the same result in structuredContent and in the text content, since
// some clients show the model only one of them.
func (h *HTTPHandler) toolHandler(m *Method) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p, ok := principalFrom(req)
		if !ok {
			return nil, errors.New("no principal on this request")
		}
		res := h.reg.Invoke(ctx, p, TransportMCP, m.Name, req.Params.Arguments)
		return toolResult(&res), nil
	}
}

func toolResult(res *Result) *mcp.CallToolResult {
	if res.Err != nil {
		code := res.Code()
		reason := res.Err.Error()
		var d *store.Denial
		if errors.As(res.Err, &d) {
			reason = d.Reason
		}
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s (audit %s)", code, reason, res.AuditID)}},
			StructuredContent: map[string]any{
				"ok": false, "method": res.Method, "audit_id": res.AuditID,
				"error": code, "message": reason,
			},
		}
	}
	result, err := json.Marshal(res.Value)
	if err != nil {
		result = []byte("null")
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s ok (audit %s)\n%s", res.Method, res.AuditID, result)}},
		StructuredContent: map[string]any{
			"ok": true, "method": res.Method, "audit_id": res.AuditID, "result": json.RawMessage(result),
		},
	}
}

// filterToolsList keeps tools/list to what this token may call: visible
// methods it holds the capability for.
func (h *HTTPHandler) filterToolsList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, err
		}
		var p Principal
		if ti := req.GetExtra().TokenInfo; ti != nil {
			p, _ = ti.Extra["principal"].(Principal)
		}
		allowed := h.reg.toolsFor(p)
		list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !allowed[t.Name] })
		// The list differs per token; the SDK's default scope is "public".
		list.CacheScope = "private"
		return list, nil
	}
}

// acceptMethodNames lets tools/call name a tool by its dotted method name
// too ("audit.query" for audit_query): the SDK knows each tool only by its
// tool name.
func (h *HTTPHandler) acceptMethodNames(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			if m, ok := h.reg.MethodForTool(call.Params.Name); ok {
				call.Params.Name = ToolName(m.Name)
			}
		}
		return next(ctx, method, req)
	}
}

// toolsFor returns the tool names p may see listed.
func (r *Registry) toolsFor(p Principal) map[string]bool {
	out := map[string]bool{}
	r.db.View(func(tx *store.Tx) error {
		var tok store.Token
		if !p.Operator {
			var err error
			if tok, err = tx.TokenByKeyID(p.KeyID); err != nil {
				return err
			}
		}
		for _, m := range r.Methods() {
			if !m.Visible() {
				continue
			}
			if p.Operator || tx.Authorize(tok, m.Capability, "") == nil {
				out[ToolName(m.Name)] = true
			}
		}
		return nil
	})
	return out
}
