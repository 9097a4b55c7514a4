package standinmodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// event is one server-sent event of a response stream.
type event struct {
	typ  string
	data map[string]any
}

// postResponses sends body to the stand-in's /v1/responses and reads the
// stream's events.
func postResponses(t *testing.T, s *Server, body any) []event {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST /v1/responses: %s, %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	var out []event
	var typ string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event %s: %v", typ, err)
			}
			if d["type"] != typ {
				t.Fatalf("event %s carries type %v", typ, d["type"])
			}
			out = append(out, event{typ, d})
		}
	}
	return out
}

// outputItem checks the stream's frame (created first, completed last with
// the usage, one item added and done) and returns the item.
func outputItem(t *testing.T, evs []event) map[string]any {
	t.Helper()
	var types []string
	for _, e := range evs {
		types = append(types, e.typ)
	}
	if len(evs) < 4 || types[0] != "response.created" || types[len(types)-1] != "response.completed" ||
		!slices.Contains(types, "response.output_item.added") || !slices.Contains(types, "response.output_item.done") {
		t.Fatalf("events %v", types)
	}
	resp := evs[len(evs)-1].data["response"].(map[string]any)
	usage, _ := json.Marshal(resp["usage"])
	for _, want := range []string{`"input_tokens":1200`, `"output_tokens":40`, `"total_tokens":1240`} {
		if !strings.Contains(string(usage), want) {
			t.Errorf("usage %s lacks %s", usage, want)
		}
	}
	for _, e := range evs {
		if e.typ == "response.output_item.done" {
			return e.data["item"].(map[string]any)
		}
	}
	return nil
}

const testPrompt = `You are working under Switchboard. Call work_await_packet with repository_id "repo_abc".`

// The conversation as Codex sends it: its instructions as developer
// messages and its environment as a user message before the prompt.
func codexInput(more ...map[string]any) []map[string]any {
	in := []map[string]any{
		{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "You are Codex."}}},
		{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}}},
		{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": testPrompt}}},
	}
	return append(in, more...)
}

const awaitResult = "work.await_packet ok (audit aud_1)\n" +
	`{"packet":{"id":"pkt_1","title":"Packet 1","expected_artifacts":[{"name":"notes","kind":"text"}]},"lease_id":"lse_1"}`

// With function tools (Codex's older models), an MCP tool is offered in a
// namespace and called by namespace and name; its output comes back by
// call_id and the worker goes on.
func TestOpenAIFunctionTools(t *testing.T) {
	s, err := Start(Worker(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := []any{
		map[string]any{"type": "function", "name": "exec_command"},
		map[string]any{"type": "namespace", "name": "mcp__switchboard", "tools": []any{
			map[string]any{"type": "function", "name": "work_await_packet"},
			map[string]any{"type": "function", "name": "work_ack"},
		}},
	}
	item := outputItem(t, postResponses(t, s, map[string]any{"model": "m", "stream": true, "input": codexInput(), "tools": tools}))
	if item["type"] != "function_call" || item["namespace"] != "mcp__switchboard" || item["name"] != "work_await_packet" || item["call_id"] == "" {
		t.Fatalf("first item %v, want a call of mcp__switchboard work_await_packet", item)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil || args["repository_id"] != "repo_abc" {
		t.Fatalf("arguments %v (%v), want repository_id repo_abc", item["arguments"], err)
	}

	next := codexInput(
		map[string]any{"type": "function_call", "namespace": "mcp__switchboard", "name": "work_await_packet", "arguments": item["arguments"], "call_id": "c1"},
		map[string]any{"type": "function_call_output", "call_id": "c1", "output": awaitResult},
	)
	item = outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": next, "tools": tools}))
	if item["name"] != "work_ack" || !strings.Contains(item["arguments"].(string), `"lease_id":"lse_1"`) {
		t.Fatalf("second item %v, want work_ack with the lease", item)
	}
	if got := s.Calls(); len(got) != 2 || got[0].Tool != ToolAwait || got[1].Tool != ToolAck {
		t.Fatalf("calls %v", got)
	}
}

// Codex defers MCP tools behind its tool_search: the stand-in searches
// first, then calls the tool the tool_search_output loaded, and reads the
// call's output without the timing lines Codex puts before it.
func TestOpenAIToolSearch(t *testing.T) {
	s, err := Start(Worker(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := []any{
		map[string]any{"type": "function", "name": "exec_command"},
		map[string]any{"type": "tool_search", "execution": "client"},
	}
	item := outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": codexInput(), "tools": tools}))
	if item["type"] != "tool_search_call" || item["execution"] != "client" || item["call_id"] == "" ||
		!strings.Contains(item["arguments"].(map[string]any)["query"].(string), "work_await_packet") {
		t.Fatalf("first item %v, want a tool_search_call for work_await_packet", item)
	}

	found := map[string]any{"type": "tool_search_output", "call_id": item["call_id"], "execution": "client", "tools": []any{
		map[string]any{"type": "namespace", "name": "mcp__switchboard", "tools": []any{
			map[string]any{"type": "function", "name": "work_await_packet"},
		}},
	}}
	search := map[string]any{"type": "tool_search_call", "call_id": item["call_id"], "execution": "client", "arguments": item["arguments"]}
	item = outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": codexInput(search, found), "tools": tools}))
	if item["type"] != "function_call" || item["namespace"] != "mcp__switchboard" || item["name"] != "work_await_packet" {
		t.Fatalf("second item %v, want a call of the tool found", item)
	}

	// Codex gives the model the structuredContent as JSON after its timing.
	structured := `{"audit_id":"aud_1","method":"work.await_packet","ok":true,"result":` +
		`{"packet":{"id":"pkt_1","title":"Packet 1","expected_artifacts":[{"name":"notes","kind":"text"}]},"lease_id":"lse_1"}}`
	call := map[string]any{"type": "function_call", "namespace": "mcp__switchboard", "name": "work_await_packet", "arguments": item["arguments"], "call_id": "c2"}
	output := map[string]any{"type": "function_call_output", "call_id": "c2", "output": "Wall time: 0.0109 seconds\nOutput:\n" + structured}
	item = outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": codexInput(search, found, call, output), "tools": tools}))
	if item["type"] != "tool_search_call" || !strings.Contains(item["arguments"].(map[string]any)["query"].(string), "work_ack") {
		t.Fatalf("third item %v, want a search for work_ack (not offered yet)", item)
	}
	_, steps := (&responsesRequest{Input: mustItems(t, codexInput(search, found, call, output))}).conversation()
	if len(steps) != 1 || steps[0].Result != structured || steps[0].IsError {
		t.Fatalf("steps %+v, want the await with its structured result", steps)
	}
}

func mustItems(t *testing.T, in []map[string]any) []responsesItem {
	t.Helper()
	b, _ := json.Marshal(in)
	var items []responsesItem
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// In code mode (Codex's current models) the only tool is exec, offered in
// an additional_tools item: the stand-in sends a script that calls the MCP
// tool through exec's tools object, and reads the call and its result
// back from the custom_tool_call and its output.
func TestOpenAICodeMode(t *testing.T) {
	s, err := Start(Worker(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offer := map[string]any{"type": "additional_tools", "role": "developer", "tools": []any{
		map[string]any{"type": "namespace", "name": "functions", "tools": []any{
			map[string]any{"type": "custom", "name": "exec"},
			map[string]any{"type": "function", "name": "wait"},
		}},
	}}
	item := outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": append([]map[string]any{offer}, codexInput()...)}))
	script, _ := item["input"].(string)
	if item["type"] != "custom_tool_call" || item["name"] != "exec" || item["namespace"] != nil ||
		!strings.Contains(script, `tools["mcp__switchboard__work_await_packet"]({"repository_id":"repo_abc"`) {
		t.Fatalf("first item %v, want exec with a script calling tools.mcp__switchboard__work_await_packet", item)
	}

	// Codex wraps the script's text in its own status lines.
	out := "Script completed\nWall time 0.1 seconds\nOutput:\n" + scriptBegin + awaitResult + scriptEnd
	next := append([]map[string]any{offer}, codexInput(
		map[string]any{"type": "custom_tool_call", "name": "exec", "input": script, "call_id": "c1"},
		map[string]any{"type": "custom_tool_call_output", "call_id": "c1", "output": []any{map[string]any{"type": "input_text", "text": out}}},
	)...)
	item = outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": next}))
	if c, ok := callInScript(item["input"].(string)); !ok || c.Tool != ToolAck || c.Args["lease_id"] != "lse_1" {
		t.Fatalf("second item %v, want exec calling work_ack with the lease", item)
	}
}

// A script's output says whether the tool failed; output without the
// markers (the script never ran) is an error, kept whole for the log.
func TestScriptResult(t *testing.T) {
	for _, tc := range []struct {
		out     string
		want    string
		wantErr bool
	}{
		{"status\n" + scriptBegin + "x ok (audit a)" + scriptEnd + "\ntrailer", "x ok (audit a)", false},
		{scriptBegin + scriptError + "denied" + scriptEnd, "denied", true},
		{"SyntaxError: unexpected token", "SyntaxError: unexpected token", true},
	} {
		got, isErr := scriptResult(tc.out)
		if got != tc.want || isErr != tc.wantErr {
			t.Errorf("scriptResult(%q) = %q, %v; want %q, %v", tc.out, got, isErr, tc.want, tc.wantErr)
		}
	}
	c := Call{Tool: ToolComplete, Args: map[string]any{"summary": `say "done" \ and </script>`}}
	if got, ok := callInScript(callScript(c, "mcp__switchboard__work_complete")); !ok || got.Tool != c.Tool || got.Args["summary"] != c.Args["summary"] {
		t.Errorf("callInScript(callScript(%v)) = %v, %v", c, got, ok)
	}
}

// Codex's side request for a thread title (an output schema) is answered
// with a title and is not a turn of the agent: no tool call is recorded.
func TestOpenAITitleRequest(t *testing.T) {
	s, err := Start(Worker(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	item := outputItem(t, postResponses(t, s, map[string]any{"model": "m", "input": codexInput(),
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "codex_output_schema"}}}))
	content, _ := json.Marshal(item["content"])
	if item["type"] != "message" || !strings.Contains(string(content), `{\"title\":`) {
		t.Fatalf("item %v, want a message with a title", item)
	}
	if len(s.Calls()) != 0 {
		t.Fatalf("calls %v after a title request", s.Calls())
	}
}
