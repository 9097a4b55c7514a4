package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// A resource is read through an Internal registry method, so every read is
// authorized and audited like a tool call.
type resourceDef struct {
	uri         string // a URI, or a URI template with one {id}
	name        string
	description string
	method      string
	arg         string // the method's argument that {id} fills
}

var resourceDefs = []resourceDef{
	{"switchboard://policies/current", "policies", "What this token may do, the limits every call is held to, and the denial codes.", "resource.policies", ""},
	{"switchboard://tools/catalog", "tools catalog", "Compact list of the tools this token may call: name, capability, one line each.", "resource.tools_catalog", ""},
	{"switchboard://repositories", "repositories", "The registered repositories: the ids work tools take as repository_id.", "resource.repositories", ""},
	{"switchboard://packets/{id}", "packet", "One work packet with its artifacts and verdicts.", "resource.packet", "packet_id"},
	{"switchboard://sessions/{id}", "session", "One agent session with its reports and trace events.", "resource.session", "session_id"},
}

func (d resourceDef) isTemplate() bool { return strings.Contains(d.uri, "{") }

// resourceFor finds the definition serving uri (a concrete URI, or a
// template as listed).
func resourceFor(uri string) (resourceDef, string, bool) {
	for _, d := range resourceDefs {
		if d.uri == uri {
			return d, "", true
		}
		if prefix, _, ok := strings.Cut(d.uri, "{id}"); ok && strings.HasPrefix(uri, prefix) {
			id := strings.TrimPrefix(uri, prefix)
			if id != "" && !strings.ContainsAny(id, "/?#") {
				return d, id, true
			}
		}
	}
	return resourceDef{}, "", false
}

// mayRead reports whether p may read uri (or the resources of a template).
func mayRead(ctx context.Context, reg *mcpserver.Registry, p mcpserver.Principal, uri string) bool {
	d, _, ok := resourceFor(uri)
	return ok && reg.MayCall(ctx, p, d.method)
}

func addResources(server *mcp.Server, reg *mcpserver.Registry) {
	for _, d := range resourceDefs {
		if _, ok := reg.MethodForTool(d.method); !ok {
			continue
		}
		h := resourceHandler(reg)
		if d.isTemplate() {
			server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: d.uri, Name: d.name, Description: d.description, MIMEType: "application/json"}, h)
		} else {
			server.AddResource(&mcp.Resource{URI: d.uri, Name: d.name, Description: d.description, MIMEType: "application/json"}, h)
		}
	}
}

func resourceHandler(reg *mcpserver.Registry) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		c, ok := callerOf(req)
		if !ok {
			return nil, errors.New("no caller on this request")
		}
		d, id, ok := resourceFor(req.Params.URI)
		if !ok {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		var args json.RawMessage
		if id != "" {
			args, _ = json.Marshal(map[string]string{d.arg: id})
		}
		res := reg.Invoke(ctx, c.principal, c.transport, d.method, args)
		if res.Err != nil {
			if res.Code() == store.CodeNotFound {
				return nil, rpcError(-32602, &res)
			}
			c.storeUnavailable(&res) // answered 503 when so
			return nil, rpcError(jsonrpcCode(res.Code()), &res)
		}
		text, err := json.Marshal(res.Value)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(text)}}}, nil
	}
}
