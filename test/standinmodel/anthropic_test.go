package standinmodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// seen records what the policy was given.
type seen struct {
	prompt string
	steps  []Step
	calls  int
}

func startWith(t *testing.T, p Policy) *Server {
	t.Helper()
	s, err := Start(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixed answers r and records what it was given in got.
func fixed(got *seen, r Reply) Policy {
	return func(prompt string, steps []Step) Reply {
		got.prompt, got.steps = prompt, steps
		got.calls++
		return r
	}
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one Server-Sent Event: its name and its data decoded.
type sseEvent struct {
	name string
	data map[string]any
}

func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var evs []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data of %s: %v", name, err)
			}
			if d["type"] != name {
				t.Fatalf("event %s has type %v", name, d["type"])
			}
			evs = append(evs, sseEvent{name, d})
		}
	}
	return evs
}

// A request as Claude Code sends it: system reminders around the prompt,
// a tool_use and its result (as text blocks), Switchboard's tools among
// its own.
const claudeRequest = `{
  "model": "claude-opus-5-5",
  "stream": %STREAM%,
  "system": [{"type": "text", "text": "You are Claude Code."}],
  "tools": [{"name": "Bash"}, {"name": "mcp__switchboard__work_await_packet"}, {"name": "mcp__switchboard__work_ack"}],
  "messages": [
    {"role": "user", "content": [
      {"type": "text", "text": "<system-reminder>\nCLAUDE.md says hello\n</system-reminder>"},
      {"type": "text", "text": "Work under Switchboard: repository_id \"repo_1\"."}
    ]},
    {"role": "assistant", "content": [
      {"type": "text", "text": "Claiming."},
      {"type": "tool_use", "id": "toolu_1", "name": "mcp__switchboard__work_await_packet", "input": {"repository_id": "repo_1"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "{\"ok\":true}"}]},
      {"type": "text", "text": "<system-reminder>a todo list</system-reminder>"}
    ]},
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "toolu_2", "name": "mcp__switchboard__work_ack", "input": {"packet_id": "pkt_1"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_2", "content": "lease expired", "is_error": true}
    ]}
  ]
}`

func claudeBody(stream bool) string {
	return strings.Replace(claudeRequest, "%STREAM%", map[bool]string{true: "true", false: "false"}[stream], 1)
}

var wantSteps = []Step{
	{Call: Call{Tool: ToolAwait, Args: map[string]any{"repository_id": "repo_1"}}, Result: `{"ok":true}`},
	{Call: Call{Tool: ToolAck, Args: map[string]any{"packet_id": "pkt_1"}}, Result: "lease expired", IsError: true},
}

func TestAnthropicStream(t *testing.T) {
	var got seen
	s := startWith(t, fixed(&got, Reply{Call: &Call{Tool: ToolAck, Args: map[string]any{"packet_id": "pkt_2", "lease_id": "lse_2"}}}))
	evs := readSSE(t, post(t, s.URL+"/v1/messages?beta=true", claudeBody(true)))

	if got.prompt != `Work under Switchboard: repository_id "repo_1".` {
		t.Errorf("prompt %q", got.prompt)
	}
	if !reflect.DeepEqual(got.steps, wantSteps) {
		t.Errorf("steps %+v\nwant %+v", got.steps, wantSteps)
	}
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	msg := evs[0].data["message"].(map[string]any)
	if msg["model"] != "claude-opus-5-5" || msg["role"] != "assistant" {
		t.Errorf("message_start %v", msg)
	}
	if u := msg["usage"].(map[string]any); u["input_tokens"] != 1200.0 || u["output_tokens"] != 1.0 || u["cache_read_input_tokens"] != 0.0 {
		t.Errorf("message_start usage %v", u)
	}
	block := evs[1].data["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "mcp__switchboard__work_ack" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Errorf("content_block_start %v", block)
	}
	delta := evs[2].data["delta"].(map[string]any)
	var input map[string]any
	if delta["type"] != "input_json_delta" || json.Unmarshal([]byte(delta["partial_json"].(string)), &input) != nil ||
		input["packet_id"] != "pkt_2" || input["lease_id"] != "lse_2" {
		t.Errorf("content_block_delta %v", delta)
	}
	md := evs[4].data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" || md["usage"].(map[string]any)["output_tokens"] != 40.0 {
		t.Errorf("message_delta %v", md)
	}
	if calls := s.Calls(); len(calls) != 1 || calls[0].Tool != ToolAck || s.FirstCall().IsZero() {
		t.Errorf("calls %v", calls)
	}
}

func TestAnthropicJSON(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		reply    Reply
		wantStop string
		// wantText is the text block's when the answer is text; "" for
		// a tool call.
		wantText   string
		wantPolicy int
	}{
		{name: "tool call", body: claudeBody(false), reply: Reply{Call: &Call{Tool: ToolAwait}},
			wantStop: "tool_use", wantPolicy: 1},
		{name: "final text", body: claudeBody(false), reply: Reply{Text: "all done"},
			wantStop: "end_turn", wantText: "all done", wantPolicy: 1},
		{name: "tool not offered", body: claudeBody(false), reply: Reply{Call: &Call{Tool: ToolComplete}},
			wantStop: "end_turn", wantText: "stand-in: the CLI offers no tool work_complete (it offers 3 tools)", wantPolicy: 1},
		{name: "side query without tools", body: `{"model":"claude-haiku","max_tokens":50,"messages":[{"role":"user","content":"Title for: fix the bug"}]}`,
			reply: Reply{Call: &Call{Tool: ToolAwait}}, wantStop: "end_turn", wantText: "Switchboard work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got seen
			s := startWith(t, fixed(&got, tt.reply))
			resp := post(t, s.URL+"/v1/messages", tt.body)
			var msg struct {
				Type       string `json:"type"`
				StopReason string `json:"stop_reason"`
				Content    []struct {
					Type  string         `json:"type"`
					Text  string         `json:"text"`
					Name  string         `json:"name"`
					Input map[string]any `json:"input"`
				} `json:"content"`
				Usage map[string]int `json:"usage"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
				t.Fatal(err)
			}
			if got.calls != tt.wantPolicy {
				t.Errorf("policy called %d times, want %d", got.calls, tt.wantPolicy)
			}
			if msg.Type != "message" || msg.StopReason != tt.wantStop || len(msg.Content) != 1 {
				t.Fatalf("message %+v", msg)
			}
			if msg.Usage["input_tokens"] != 1200 || msg.Usage["output_tokens"] != 40 {
				t.Errorf("usage %v", msg.Usage)
			}
			c := msg.Content[0]
			if tt.wantText == "" {
				if c.Type != "tool_use" || c.Name != "mcp__switchboard__"+tt.reply.Call.Tool || c.Input == nil {
					t.Errorf("block %+v", c)
				}
			} else if c.Type != "text" || c.Text != tt.wantText {
				t.Errorf("block %+v, want text %q", c, tt.wantText)
			}
		})
	}
}

func TestAnthropicOtherRoutes(t *testing.T) {
	s := startWith(t, fixed(&seen{}, Reply{Text: "x"}))
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	json.NewDecoder(post(t, s.URL+"/v1/messages/count_tokens?beta=true", claudeBody(false)).Body).Decode(&n)
	if n.InputTokens != 1200 {
		t.Errorf("count_tokens %d", n.InputTokens)
	}
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&models); len(models.Data) != 1 || models.Data[0].ID == "" {
		t.Errorf("models %+v", models)
	}
	head, err := http.Head(s.URL + "/api/hello")
	if err != nil || head.StatusCode != http.StatusOK {
		t.Errorf("HEAD /api/hello: %v %v", head, err)
	}
	if bad := post(t, s.URL+"/v1/messages", "{not json"); bad.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: %d", bad.StatusCode)
	}
}

// The Worker through the dialect, with results as Claude Code gives them
// to the model: the structuredContent JSON, not the text.
func TestAnthropicWorkerStructuredResults(t *testing.T) {
	s := startWith(t, Worker(1))
	claimed := `{"audit_id":"aud_1","method":"work.await_packet","ok":true,"result":{"packet":{"id":"pkt_1","title":"P","expected_artifacts":[{"name":"notes","kind":"text"}]},"lease_id":"lse_1"}}`
	acked := `{"audit_id":"aud_2","method":"work.ack","ok":true,"result":{}}`
	failed := `{"audit_id":"aud_3","method":"work.ack","ok":false,"error":{"code":"conflict"}}`
	turn := func(results ...string) map[string]any {
		msgs := []map[string]any{{"role": "user", "content": `Go: repository_id "repo_1"`}}
		tools := []string{ToolAwait, ToolAck, ToolPublish}
		for i, r := range results {
			id := "toolu_" + string(rune('a'+i))
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": id, "name": "mcp__switchboard__" + tools[i], "input": map[string]any{}}}},
				map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": r}}})
		}
		body, _ := json.Marshal(map[string]any{"messages": msgs, "tools": []map[string]any{
			{"name": "mcp__switchboard__work_await_packet"}, {"name": "mcp__switchboard__work_ack"}, {"name": "mcp__switchboard__artifact_publish"}}})
		var msg struct {
			Content []map[string]any `json:"content"`
		}
		json.NewDecoder(post(t, s.URL+"/v1/messages", string(body)).Body).Decode(&msg)
		if len(msg.Content) != 1 {
			t.Fatalf("content %v", msg.Content)
		}
		return msg.Content[0]
	}
	if b := turn(claimed); b["name"] != "mcp__switchboard__work_ack" || b["input"].(map[string]any)["lease_id"] != "lse_1" {
		t.Errorf("after a claim: %v", b)
	}
	if b := turn(claimed, acked); b["name"] != "mcp__switchboard__artifact_publish" || b["input"].(map[string]any)["name"] != "notes" {
		t.Errorf("after an ack: %v", b)
	}
	if b := turn(claimed, failed); b["type"] != "text" || !strings.Contains(b["text"].(string), "work_ack failed") {
		t.Errorf("after a failed ack: %v", b)
	}
}
