package mcphttp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// connect opens a go-sdk client session to e with raw as bearer token.
func (e *httpEnv) connect(t testing.TB, raw string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:   e.url,
		HTTPClient: e.httpClient(raw),
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// structured returns a call result's structuredContent as a map.
func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	m, ok := remarshal(t, res.StructuredContent).(map[string]any)
	if !ok {
		t.Fatalf("structuredContent %#v is not an object", res.StructuredContent)
	}
	return m
}

func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%d content items, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// wantToolOK checks the success shape: ok, method, an audit id naming a
// real "ok" record, and the same result in structuredContent and content.
func (e *httpEnv) wantToolOK(t testing.TB, res *mcp.CallToolResult, method string) map[string]any {
	t.Helper()
	sc := structured(t, res)
	if res.IsError || sc["ok"] != true || sc["method"] != method {
		t.Fatalf("%s: isError %v, structuredContent %v", method, res.IsError, sc)
	}
	id, _ := sc["audit_id"].(string)
	if rec := e.auditRecord(t, id); rec.Outcome != "ok" || rec.Method != method || rec.Transport != "mcp" {
		t.Errorf("%s: audit record %+v", method, rec)
	}
	result, ok := sc["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: result %#v", method, sc["result"])
	}
	text := textOf(t, res)
	first, rest, _ := strings.Cut(text, "\n")
	if strings.Contains(first, "{") || !strings.Contains(first, id) {
		t.Errorf("%s: first line of content %q", method, first)
	}
	var fromText any
	if err := json.Unmarshal([]byte(rest), &fromText); err != nil {
		t.Fatalf("%s: content after the first line is not JSON: %v: %q", method, err, rest)
	}
	if !reflect.DeepEqual(fromText, sc["result"]) {
		t.Errorf("%s: content carries %v, structuredContent %v", method, fromText, sc["result"])
	}
	return result
}

// wantToolDenied checks the denial shape: isError, the code, an audit id
// naming a record with that outcome, and the code in the text.
func (e *httpEnv) wantToolDenied(t testing.TB, res *mcp.CallToolResult, method string, code store.Code) {
	t.Helper()
	sc := structured(t, res)
	if !res.IsError || sc["ok"] != false || sc["error"] != string(code) || sc["method"] != method {
		t.Fatalf("%s: isError %v, structuredContent %v; want %s", method, res.IsError, sc, code)
	}
	id, _ := sc["audit_id"].(string)
	if rec := e.auditRecord(t, id); rec.Outcome != string(code) || rec.Method != method || rec.Transport != "mcp" {
		t.Errorf("%s: audit record %+v", method, rec)
	}
	if msg, _ := sc["message"].(string); msg == "" {
		t.Errorf("%s: no message", method)
	}
	if text := textOf(t, res); !strings.HasPrefix(text, string(code)+": ") || !strings.Contains(text, id) || strings.Contains(text, "\n") {
		t.Errorf("%s: content %q", method, text)
	}
}

func TestMCPClient(t *testing.T) {
	e := newHTTPEnv(t)
	cs := e.connect(t, e.clientRaw)

	init := cs.InitializeResult()
	if init.Instructions != mcpserver.Instructions || init.ServerInfo.Name != "switchboard" || init.ServerInfo.Version != testVersion || init.Capabilities.Tools == nil {
		t.Errorf("initialize: %+v, server %+v", init, init.ServerInfo)
	}

	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(list.Tools), []string{"artifact_publish", "audit_query", "repository_list", "review_verdict", "session_await_answer", "session_report", "status", "tools_describe", "tools_search", "work_ack", "work_await_packet", "work_complete", "work_get", "work_list", "work_release"}; !slices.Equal(got, want) {
		t.Errorf("tools/list for the client token: %v, want %v", got, want)
	}
	if list.CacheScope != "private" {
		t.Errorf("tools/list cacheScope %q, want private: the list differs per token", list.CacheScope)
	}
	for _, tl := range list.Tools {
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("tool %s: annotations %+v", tl.Name, a)
			continue
		}
		m, _ := e.reg.MethodForTool(tl.Name)
		if a.ReadOnlyHint != (m.Flags&mcpserver.ReadOnly != 0) || tl.Title != m.Name || tl.Description != m.Description {
			t.Errorf("tool %s: %+v", tl.Name, tl)
		}
		var schema map[string]any
		if b, _ := json.Marshal(tl.InputSchema); json.Unmarshal(b, &schema) != nil || schema["type"] != "object" {
			t.Errorf("tool %s: input schema %v", tl.Name, tl.InputSchema)
		}
	}

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil {
		t.Fatal(err)
	}
	result := e.wantToolOK(t, res, "status")
	if result["version"] != testVersion || result["principal"] != "token "+e.client.KeyID {
		t.Errorf("status result %v", result)
	}
	if lu := e.token(t, e.client.KeyID).LastUsedAt; lu == nil {
		t.Error("tools/call did not mark the token used")
	}

	// Hidden methods fail closed, under either name.
	for _, name := range []string{"token_create", "token.create", "audit_verify"} {
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"label": "x"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, _ := e.reg.MethodForTool(name)
		e.wantToolDenied(t, res, m.Name, store.CodeToolHidden)
	}

	// Dotted method names are accepted as tool names.
	for _, name := range []string{"status", "audit.query", "audit_query", "repository.list"} {
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		m, _ := e.reg.MethodForTool(name)
		e.wantToolOK(t, res, m.Name)
	}

	// Method errors come back as tool errors the model can read.
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status", Arguments: map[string]any{"repository_id": "repo_missing"}})
	if err != nil {
		t.Fatal(err)
	}
	e.wantToolDenied(t, res, "status", store.CodeRepoNotRegistered)
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "audit_query", Arguments: map[string]any{"nonsense": true}})
	if err != nil {
		t.Fatal(err)
	}
	e.wantToolDenied(t, res, "audit.query", store.CodeInvalidArgument)

	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("tools/call of an unknown tool succeeded")
	}

	// The client discovered 2026-07-28 (server/discover answers), which has
	// no ping; go-sdk v1.8.0's client still sends one, without the _meta the
	// era requires. Older-era clients' ping is covered in http_test.go.

}

// tools/list shows a token only the tools its grants allow, and a call
// outside them is denied with an audit id.
func TestMCPToolsFilteredByGrants(t *testing.T) {
	e := newHTTPEnv(t)
	cs := e.connect(t, e.auditRaw)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(list.Tools); !slices.Equal(got, []string{"audit_query"}) {
		t.Errorf("tools/list for an audit:read token: %v", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil {
		t.Fatal(err)
	}
	e.wantToolDenied(t, res, "status", store.CodeCapabilityMissing)
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "audit_query", Arguments: map[string]any{"limit": 5}})
	if err != nil {
		t.Fatal(err)
	}
	result := e.wantToolOK(t, res, "audit.query")
	// It finds the denial just audited.
	if recs, _ := result["records"].([]any); len(recs) != 1 || recs[0].(map[string]any)["outcome"] != string(store.CodeCapabilityMissing) {
		t.Errorf("audit.query: %v", result)
	}

	// A token with no grant at all sees no tools.
	_, bare := e.createToken(t, store.TokenSpec{Label: "bare"})
	list, err = e.connect(t, bare).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 0 {
		t.Errorf("tools/list for a token without grants: %v", toolNames(list.Tools))
	}
}

// A token revoked while its client is connected is refused at once.
func TestMCPClientTokenRevoked(t *testing.T) {
	e := newHTTPEnv(t)
	tok, raw := e.createToken(t, store.TokenSpec{Label: "short-lived", Grants: allGrants()})
	cs := e.connect(t, raw)
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	e.update(t, func(tx *store.Tx) error { _, err := tx.RevokeToken(tok.KeyID); return err })
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"}); err == nil {
		t.Error("a revoked token's call succeeded")
	}
}
