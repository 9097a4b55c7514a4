package mcpserver

import (
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodToolsSearch          Name[ToolsSearchArgs, ToolsSearchResult] = "tools.search"
	MethodToolsDescribe        Name[ToolsDescribeArgs, ToolDescription] = "tools.describe"
	MethodResourcePolicies     Name[NoArgs, PoliciesResult]             = "resource.policies"
	MethodResourceToolsCatalog Name[NoArgs, CatalogResult]              = "resource.tools_catalog"
	MethodResourceRepositories Name[NoArgs, RepositoryList]             = "resource.repositories"
)

// ToolSummary is one line of a catalog.
type ToolSummary struct {
	Name        string           `json:"name" jsonschema:"the MCP tool name"`
	Method      string           `json:"method" jsonschema:"the dotted method name"`
	Capability  store.Capability `json:"capability"`
	ReadOnly    bool             `json:"read_only"`
	Description string           `json:"description"`
}

// ToolsSearchArgs are the arguments of tools.search.
type ToolsSearchArgs struct {
	Query        string           `json:"query,omitempty" jsonschema:"words that must all appear in the name or description; empty lists everything"`
	Capability   store.Capability `json:"capability,omitempty" jsonschema:"only tools that need this capability"`
	RepositoryID string           `json:"repository_id,omitempty" jsonschema:"only tools this token may call on this repository"`
	Limit        int              `json:"limit,omitempty" jsonschema:"at most this many (default 20)"`
}

// ToolsSearchResult is the result of tools.search.
type ToolsSearchResult struct {
	Tools     []ToolSummary `json:"tools"`
	Count     int           `json:"count"`
	Truncated bool          `json:"truncated"`
}

// ToolsDescribeArgs are the arguments of tools.describe.
type ToolsDescribeArgs struct {
	Name string `json:"name" jsonschema:"a tool name (work_await_packet) or method name (work.await_packet)"`
}

// ToolDescription is the result of tools.describe: everything needed to call
// one tool.
type ToolDescription struct {
	ToolSummary
	InputSchema  any `json:"input_schema"`
	OutputSchema any `json:"output_schema"`
}

// PoliciesResult is the switchboard://policies/current resource.
type PoliciesResult struct {
	Kind        string        `json:"kind"`
	Principal   string        `json:"principal"`
	Grants      []store.Grant `json:"grants"`
	Limits      PolicyLimits  `json:"limits"`
	DenialCodes []store.Code  `json:"denial_codes"`
	Rules       []string      `json:"rules"`
}

// PolicyLimits are the bounds every call is held to.
type PolicyLimits struct {
	MaxRequestBytes int `json:"max_request_bytes"`
}

// CatalogResult is the switchboard://tools/catalog resource.
type CatalogResult struct {
	Tools []ToolSummary `json:"tools"`
}

func summary(m *Method) ToolSummary {
	return ToolSummary{Name: ToolName(m.Name), Method: m.Name, Capability: m.Capability, ReadOnly: m.Flags&ReadOnly != 0, Description: m.Description}
}

func (r *Registry) registerDiscovery() {
	r.Register(Define(MethodToolsSearch, On(Global, store.CapStatusRead), ReadOnly,
		"Find tools by words or capability without loading every schema; then tools_describe the ones you need.",
		func(c *Call, in ToolsSearchArgs) (ToolsSearchResult, error) {
			ms, err := r.callable(c.Tx, c.Principal, in.RepositoryID)
			if err != nil {
				return ToolsSearchResult{}, err
			}
			limit := in.Limit
			if limit <= 0 {
				limit = 20
			}
			words := strings.Fields(strings.ToLower(in.Query))
			out := ToolsSearchResult{Tools: []ToolSummary{}}
			for _, m := range ms {
				if in.Capability != "" && m.Capability != in.Capability {
					continue
				}
				hay := strings.ToLower(m.Name + " " + ToolName(m.Name) + " " + m.Description)
				if !all(words, func(w string) bool { return strings.Contains(hay, w) }) {
					continue
				}
				out.Count++
				if len(out.Tools) < limit {
					out.Tools = append(out.Tools, summary(m))
				}
			}
			out.Truncated = out.Count > len(out.Tools)
			return out, nil
		}))
	r.Register(Define(MethodToolsDescribe, On(Global, store.CapStatusRead), ReadOnly,
		"One tool's input and output JSON schemas, capability and description.",
		func(c *Call, in ToolsDescribeArgs) (ToolDescription, error) {
			m, ok := r.MethodForTool(in.Name)
			if !ok || m.Flags&Internal != 0 {
				return ToolDescription{}, store.Deny(store.CodeNotFound, "no tool %q", in.Name)
			}
			if m.Flags&Hidden != 0 && c.Transport.IsMCP() {
				return ToolDescription{}, store.Deny(store.CodeToolHidden, "%s is not available over MCP", m.Name)
			}
			if err := c.Permits(m, ""); err != nil {
				return ToolDescription{}, err
			}
			return ToolDescription{ToolSummary: summary(m), InputSchema: m.InputSchema, OutputSchema: EnvelopeSchema(m.OutputSchema)}, nil
		}))
}

func (r *Registry) registerResources() {
	r.Register(Define(MethodResourcePolicies, On(Global, store.CapStatusRead), Internal|ReadOnly,
		"switchboard://policies/current",
		func(c *Call, _ NoArgs) (PoliciesResult, error) {
			out := PoliciesResult{
				Kind:      "policies.current",
				Principal: "operator",
				Grants:    []store.Grant{},
				Limits:    PolicyLimits{MaxRequestBytes: MaxBodyBytes},
				DenialCodes: []store.Code{
					store.CodeTokenMissing, store.CodeTokenMalformed, store.CodeTokenInvalid, store.CodeTokenRevoked, store.CodeTokenExpired,
					store.CodeCapabilityMissing, store.CodeCapabilityScopeMismatch, store.CodeCapabilityExpired, store.CodeRepoNotRegistered,
					store.CodeMethodUnknown, store.CodeToolHidden,
					CodeOriginForbidden, CodeHostForbidden, CodeParseError, CodeInvalidRequest, CodePayloadTooLarge,
				},
				Rules: []string{
					"Bearer tokens only, in the Authorization header; never in a query string or in params.",
					"Host must be loopback; a browser Origin must be loopback or allowed by the operator.",
					"Every call is audited, denials included; the audit log is hash-chained.",
					"Work is claimed under fenced leases: a stale lease_id fails with lease_lost.",
					"Terminal output is never read as workflow state.",
				},
			}
			if !c.Principal.Operator {
				tok := c.Token()
				out.Principal = "token " + tok.KeyID + " (" + string(tok.Kind) + ")"
				out.Grants = tok.Grants
			}
			return out, nil
		}))
	r.Register(Define(MethodResourceToolsCatalog, On(Global, store.CapStatusRead), Internal|ReadOnly,
		"switchboard://tools/catalog",
		func(c *Call, _ NoArgs) (CatalogResult, error) {
			ms, err := r.callable(c.Tx, c.Principal, "")
			out := CatalogResult{Tools: []ToolSummary{}}
			for _, m := range ms {
				out.Tools = append(out.Tools, summary(m))
			}
			return out, err
		}))
	r.Register(Define(MethodResourceRepositories, On(Global, store.CapStatusRead), Internal|ReadOnly,
		"switchboard://repositories", listRepositories))
}

func all[T any](xs []T, f func(T) bool) bool {
	return !slices.ContainsFunc(xs, func(x T) bool { return !f(x) })
}
