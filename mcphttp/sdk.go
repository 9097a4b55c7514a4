package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/store"
)

// newSDKHandler builds the stateless go-sdk server whose tools and resources
// call the registry, behind the SDK's bearer middleware, which is the only
// way it passes a caller to handlers (in RequestExtra.TokenInfo).
func newSDKHandler(reg *mcpserver.Registry, version string) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: version}, &mcp.ServerOptions{
		Instructions: mcpserver.Instructions,
		// Declared up front so that discovery is the same whatever a token
		// may see. Logging is declared for the eras that have it: clients
		// may set a level; the server sends no log notifications.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Logging:   &mcp.LoggingCapabilities{},
		},
		// Every list depends on the token that asked.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	for _, m := range reg.Methods() {
		if m.Flags&mcpserver.Internal != 0 {
			continue
		}
		// Hidden methods are tools too, so that calling one reaches the
		// registry and fails closed there, audited, with tool_hidden.
		server.AddTool(toolFor(m), toolHandler(reg, m))
	}
	addResources(server, reg)
	addPrompts(server, reg)
	server.AddReceivingMiddleware(filterLists(reg), resolveToolNames(reg))
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

func toolFor(m *mcpserver.Method) *mcp.Tool {
	ro := m.Flags&mcpserver.ReadOnly != 0
	f := false
	return &mcp.Tool{
		Name:         mcpserver.ToolName(m.Name),
		Title:        m.Name,
		Description:  m.Description,
		InputSchema:  m.InputSchema,
		OutputSchema: mcpserver.EnvelopeSchema(m.OutputSchema),
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
// some clients show the model only one of them. Denials are answered here,
// inside the handler, so that the SDK still stamps resultType on them.
func toolHandler(reg *mcpserver.Registry, m *mcpserver.Method) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, ok := callerOf(req)
		if !ok {
			return nil, errors.New("no caller on this request")
		}
		ctx, stop := linkContext(ctx, c.request)
		defer stop()
		args := withRepository(req.Params.Arguments, c.repositoryID, m)
		res := reg.Invoke(ctx, c.principal, c.transport, m.Name, args)
		if c.storeUnavailable(&res) {
			// Not a result of the tool: the request failed and may be
			// sent again (HTTP 503, as the fast path answers).
			return nil, rpcError(jsonrpcCode(res.Code()), &res)
		}
		return toolResult(&res), nil
	}
}

// linkContext returns a context that also ends when request does.
func linkContext(ctx, request context.Context) (context.Context, func()) {
	if request == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(request, cancel)
	return ctx, func() { stop(); cancel() }
}

// withRepository copies params.repository_id into the arguments when the
// method takes one and the arguments lack it.
func withRepository(args json.RawMessage, repoID string, m *mcpserver.Method) json.RawMessage {
	if repoID == "" || !m.TakesRepository() {
		return args
	}
	obj := map[string]json.RawMessage{}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &obj); err != nil {
			return args // the registry reports the bad arguments
		}
	}
	if _, ok := obj["repository_id"]; ok {
		return args
	}
	obj["repository_id"], _ = json.Marshal(repoID)
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}

func toolResult(res *mcpserver.Result) *mcp.CallToolResult {
	if res.Err != nil {
		code := res.Code()
		reason := res.Err.Error()
		structured := map[string]any{
			"ok": false, "method": res.Method, "audit_id": res.AuditID,
			"error": code, "message": reason,
		}
		var d *store.Denial
		if errors.As(res.Err, &d) {
			structured["message"] = d.Reason
			if len(d.Paths) > 0 {
				structured["paths"] = d.Paths
			}
		}
		return &mcp.CallToolResult{
			IsError:           true,
			Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s (audit %s)", code, structured["message"], res.AuditID)}},
			StructuredContent: structured,
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

// filterLists keeps tools/list to the tools this token may call (visible
// methods it holds the capability for, on params.repository_id when given)
// and resources/list and resources/templates/list to what it may read.
func filterLists(reg *mcpserver.Registry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			c, _ := callerOf(req)
			switch list := res.(type) {
			case *mcp.ListToolsResult:
				allowed := reg.ToolsFor(ctx, c.principal, c.repositoryID)
				list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !allowed[t.Name] })
			case *mcp.ListResourcesResult:
				list.Resources = slices.DeleteFunc(list.Resources, func(r *mcp.Resource) bool { return !mayRead(ctx, reg, c.principal, r.URI) })
			case *mcp.ListPromptsResult:
				list.Prompts = slices.DeleteFunc(list.Prompts, func(pr *mcp.Prompt) bool { return !reg.MayCall(ctx, c.principal, promptMethod) })
			case *mcp.ListResourceTemplatesResult:
				list.ResourceTemplates = slices.DeleteFunc(list.ResourceTemplates, func(r *mcp.ResourceTemplate) bool {
					return !mayRead(ctx, reg, c.principal, r.URITemplate)
				})
			}
			return res, nil
		}
	}
}

// resolveToolNames lets tools/call name a tool by its dotted method name too
// ("audit.query" for audit_query): the SDK knows each tool only by its tool
// name. A name that is neither is audited as method_unknown and answered
// with a JSON-RPC error carrying that code.
func resolveToolNames(reg *mcpserver.Registry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			if m, ok := reg.MethodForTool(call.Params.Name); ok && m.Flags&mcpserver.Internal == 0 {
				call.Params.Name = mcpserver.ToolName(m.Name)
				return next(ctx, method, req)
			}
			c, _ := callerOf(req)
			res := reg.RefuseTool(c.principal, c.transport, call.Params.Name)
			return nil, rpcError(-32602, &res)
		}
	}
}

// rpcError turns a registry denial into a JSON-RPC error with our code in
// error.data, for requests that are not tool calls.
func rpcError(code int64, res *mcpserver.Result) *jsonrpc.Error {
	reason := res.Err.Error()
	var d *store.Denial
	if errors.As(res.Err, &d) {
		reason = d.Reason
	}
	data, _ := json.Marshal(map[string]any{"code": res.Code(), "audit_id": res.AuditID})
	return &jsonrpc.Error{Code: code, Message: reason, Data: data}
}
