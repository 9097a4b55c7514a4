package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/store"
)

// newSDKHandler builds the stateless go-sdk server whose tools call the
// registry, behind the SDK's bearer middleware, which is the only way it
// passes a caller to tool handlers (in RequestExtra.TokenInfo).
func newSDKHandler(reg *Registry, version string) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, m := range reg.Methods() {
		if m.Flags&Internal != 0 {
			continue
		}
		server.AddTool(toolFor(m), toolHandler(reg, m))
	}
	server.AddReceivingMiddleware(filterToolsList(reg), acceptMethodNames(reg))
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The front layer bounds the body and checks Host and Origin with
		// codes the SDK does not give.
		MaxRequestBodyBytes:        -1,
		DisableLocalhostProtection: true,
	})
	return auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := ctx.Value(callerKey{}).(caller)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: c.principal.KeyID, Extra: map[string]any{"caller": c}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
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

// callerOf returns the caller the front layer attached to req.
func callerOf(req mcp.Request) (caller, bool) {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return caller{}, false
	}
	c, ok := extra.TokenInfo.Extra["caller"].(caller)
	return c, ok
}

// toolHandler calls m through the registry and shapes the result as the spec
// wants: the same result in structuredContent and in the text content, since
// some clients show the model only one of them.
func toolHandler(reg *Registry, m *Method) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, ok := callerOf(req)
		if !ok {
			return nil, errors.New("no caller on this request")
		}
		res := reg.Invoke(ctx, c.principal, c.transport, m.Name, req.Params.Arguments)
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
func filterToolsList(reg *Registry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/list" || err != nil {
				return res, err
			}
			list, ok := res.(*mcp.ListToolsResult)
			if !ok {
				return res, err
			}
			c, _ := callerOf(req)
			allowed := reg.toolsFor(c.principal)
			list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !allowed[t.Name] })
			// The list differs per token; the SDK's default scope is "public".
			list.CacheScope = "private"
			return list, nil
		}
	}
}

// acceptMethodNames lets tools/call name a tool by its dotted method name
// too ("audit.query" for audit_query): the SDK knows each tool only by its
// tool name.
func acceptMethodNames(reg *Registry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if m, ok := reg.MethodForTool(call.Params.Name); ok {
					call.Params.Name = ToolName(m.Name)
				}
			}
			return next(ctx, method, req)
		}
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
