package standinmodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// geminiTools is a tools list as Gemini CLI sends it: its own tools and
// Switchboard's with its mcp_<server>_ prefix.
const geminiTools = `[{"functionDeclarations":[{"name":"read_file"},{"name":"mcp_switchboard_work_await_packet"},{"name":"mcp_switchboard_work_ack"}]}]`

func TestGeminiConversation(t *testing.T) {
	tests := []struct {
		name     string
		contents string
		prompt   string
		steps    []Step
	}{
		{
			name:     "first turn",
			contents: `[{"role":"user","parts":[{"text":"work repository_id \"repo_a\""}]}]`,
			prompt:   `work repository_id "repo_a"`,
		},
		{
			name: "a call and its wrapped result",
			contents: `[{"role":"user","parts":[{"text":"the prompt"}]},
				{"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"id":"c1","name":"mcp_switchboard_work_await_packet","args":{"repository_id":"repo_a"}}}]},
				{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"mcp_switchboard_work_await_packet","response":{"output":"<untrusted_context>\nwork.await_packet ok (audit aud_1)\n{}\n</untrusted_context>"}}}]}]`,
			prompt: "the prompt",
			steps: []Step{{Call: Call{Tool: ToolAwait, Args: map[string]any{"repository_id": "repo_a"}},
				Result: "<untrusted_context>\nwork.await_packet ok (audit aud_1)\n{}\n</untrusted_context>"}},
		},
		{
			name: "an error result, and parallel calls answered out of order",
			contents: `[{"role":"user","parts":[{"text":"p"}]},
				{"role":"model","parts":[{"functionCall":{"id":"a","name":"mcp_switchboard_work_ack","args":{}}},{"functionCall":{"id":"b","name":"mcp_switchboard_work_ack","args":{"n":1}}}]},
				{"role":"user","parts":[{"functionResponse":{"id":"b","name":"mcp_switchboard_work_ack","response":{"output":"second"}}},
					{"functionResponse":{"id":"a","name":"mcp_switchboard_work_ack","response":{"error":"lease_lost"}}}]}]`,
			prompt: "p",
			steps: []Step{
				{Call: Call{Tool: ToolAck, Args: map[string]any{}}, Result: "lease_lost", IsError: true},
				{Call: Call{Tool: ToolAck, Args: map[string]any{"n": float64(1)}}, Result: "second"},
			},
		},
		{
			name: "calls without ids pair by name in order; an unanswered call is no step",
			contents: `[{"role":"user","parts":[{"text":"p"}]},
				{"role":"model","parts":[{"functionCall":{"name":"mcp_switchboard_work_ack","args":{}}}]},
				{"role":"user","parts":[{"functionResponse":{"name":"mcp_switchboard_work_ack","response":{"content":[]}}}]},
				{"role":"model","parts":[{"functionCall":{"name":"mcp_switchboard_work_complete","args":{}}}]}]`,
			prompt: "p",
			steps:  []Step{{Call: Call{Tool: ToolAck, Args: map[string]any{}}, Result: `{"content":[]}`}},
		},
		{
			name: "later user texts join the prompt",
			contents: `[{"role":"user","parts":[{"text":"context"}]},{"role":"model","parts":[{"text":"Got it."}]},
				{"role":"user","parts":[{"text":"the prompt"}]}]`,
			prompt: "context\nthe prompt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req geminiRequest
			if err := json.Unmarshal([]byte(`{"contents":`+tt.contents+`}`), &req); err != nil {
				t.Fatal(err)
			}
			prompt, steps := req.conversation()
			if prompt != tt.prompt {
				t.Errorf("prompt %q, want %q", prompt, tt.prompt)
			}
			if !reflect.DeepEqual(steps, tt.steps) {
				t.Errorf("steps\n%+v\nwant\n%+v", steps, tt.steps)
			}
		})
	}
}

// geminiServer starts a stand-in whose policy records what it was given
// and answers with reply.
func geminiServer(t *testing.T, reply Reply) (*Server, func() (string, []Step)) {
	t.Helper()
	var mu sync.Mutex
	var gotPrompt string
	var gotSteps []Step
	s, err := Start(func(prompt string, steps []Step) Reply {
		mu.Lock()
		defer mu.Unlock()
		gotPrompt, gotSteps = prompt, steps
		return reply
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func() (string, []Step) {
		mu.Lock()
		defer mu.Unlock()
		return gotPrompt, gotSteps
	}
}

func geminiPost(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// geminiAnswer is the part of a GenerateContentResponse the tests read.
type geminiAnswer struct {
	Candidates []struct {
		Content      geminiContent `json:"content"`
		FinishReason string        `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata map[string]int `json:"usageMetadata"`
}

// sseAnswers reads the data events of a stream.
func sseAnswers(t *testing.T, body string) []geminiAnswer {
	t.Helper()
	var out []geminiAnswer
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimRight(sc.Text(), "\r"), "data: ")
		if !ok {
			continue
		}
		var a geminiAnswer
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, a)
	}
	return out
}

func TestGeminiStream(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		call  string // the functionCall name wanted, or "" for text
		text  string // a part of the text wanted
	}{
		{name: "a call by its offered name", reply: Reply{Call: &Call{Tool: ToolAwait, Args: map[string]any{"repository_id": "repo_a"}}},
			call: "mcp_switchboard_work_await_packet"},
		{name: "final text", reply: Reply{Text: "stand-in: done"}, text: "stand-in: done"},
		{name: "a tool the CLI did not offer", reply: Reply{Call: &Call{Tool: ToolComplete}}, text: "offered no work_complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, got := geminiServer(t, tt.reply)
			resp, body := geminiPost(t, s.URL+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
				`{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":`+geminiTools+`}`)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("%s %s: %s", resp.Status, resp.Header.Get("Content-Type"), body)
			}
			if p, _ := got(); p != "go" {
				t.Errorf("the policy got prompt %q", p)
			}
			answers := sseAnswers(t, body)
			if len(answers) != 1 || len(answers[0].Candidates) != 1 {
				t.Fatalf("answers %+v", answers)
			}
			c := answers[0].Candidates[0]
			if c.FinishReason != "STOP" || answers[0].UsageMetadata["totalTokenCount"] != 1240 || len(c.Content.Parts) != 1 || c.Content.Role != "model" {
				t.Errorf("candidate %+v, usage %v", c, answers[0].UsageMetadata)
			}
			p := c.Content.Parts[0]
			switch {
			case tt.call != "" && (p.FunctionCall == nil || p.FunctionCall.Name != tt.call || p.FunctionCall.Args["repository_id"] != "repo_a"):
				t.Errorf("part %+v, want a call of %s", p, tt.call)
			case tt.call == "" && (p.FunctionCall != nil || !strings.Contains(p.Text, tt.text)):
				t.Errorf("part %+v, want text with %q", p, tt.text)
			}
		})
	}
}

func TestGeminiSideCalls(t *testing.T) {
	s, _ := geminiServer(t, Reply{Text: "the agent's turn"})
	tests := []struct {
		name, path, body string
		status           int
		check            func(t *testing.T, body string)
	}{
		{
			name: "next speaker check: JSON by schema", path: "gemini-flash:generateContent",
			body:   `{"contents":[{"role":"user","parts":[{"text":"who next"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"reasoning":{"type":"string"},"next_speaker":{"type":"string","enum":["user","model"]},"score":{"type":"number"},"ok":{"type":"boolean"},"list":{"type":"array"}},"required":["reasoning","next_speaker"]}}}`,
			status: 200,
			check: func(t *testing.T, body string) {
				var got map[string]any
				if err := json.Unmarshal([]byte(geminiText(t, body)), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]any{"reasoning": "stand-in", "next_speaker": "user", "score": float64(0), "ok": false, "list": []any{}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("answer %v, want %v", got, want)
				}
			},
		},
		{
			name: "JSON without a schema", path: "gemini-flash:generateContent",
			body: `{"contents":[],"generationConfig":{"responseMimeType":"application/json"}}`, status: 200,
			check: func(t *testing.T, body string) {
				if text := geminiText(t, body); text != "{}" {
					t.Errorf("answer %q, want {}", text)
				}
			},
		},
		{
			name: "a plain generateContent is the agent's turn", path: "gemini-pro:generateContent",
			body: `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`, status: 200,
			check: func(t *testing.T, body string) {
				if text := geminiText(t, body); text != "the agent's turn" {
					t.Errorf("answer %q", text)
				}
			},
		},
		{
			name: "countTokens", path: "gemini-pro:countTokens",
			body: `{"contents":[{"role":"user","parts":[{"text":"` + strings.Repeat("x", 400) + `"}]}]}`, status: 200,
			check: func(t *testing.T, body string) {
				var got struct{ TotalTokens int }
				if json.Unmarshal([]byte(body), &got); got.TotalTokens != 100 {
					t.Errorf("answer %s, want 100 tokens", body)
				}
			},
		},
		{name: "unknown method", path: "gemini-pro:embedContent", body: `{}`, status: 404},
		{name: "bad body", path: "gemini-pro:generateContent", body: `{`, status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := geminiPost(t, s.URL+"/v1beta/models/"+tt.path, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("%s: %s", resp.Status, body)
			}
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
}

// geminiText is the text of a non-streamed answer's one part.
func geminiText(t *testing.T, body string) string {
	t.Helper()
	var a geminiAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil || len(a.Candidates) != 1 || len(a.Candidates[0].Content.Parts) != 1 {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a.Candidates[0].Content.Parts[0].Text
}
