package standinmodel

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The anthropic dialect: Anthropic's Messages API as Claude Code calls it
// through ANTHROPIC_BASE_URL. Claude Code streams its main conversation
// (POST /v1/messages?beta=true with "stream": true) and sends side queries
// of its own without tools (a title for the session, a topic check); it
// may also count tokens and list models. Every answer carries usage, since
// Claude Code writes it into its transcript and Switchboard reads it there.

// Usage the stand-in reports for every message: what message_start says
// and what message_delta adds.
const (
	anthropicInputTokens  = 1200
	anthropicOutputTokens = 40
)

// anthropicModel is the model the stand-in names when a request names none.
const anthropicModel = "claude-sonnet-4-5"

func (s *Server) anthropicRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	// Claude Code checks that the API answers before its first request.
	mux.HandleFunc("/api/hello", func(w http.ResponseWriter, r *http.Request) {
		s.logf("anthropic: %s /api/hello", r.Method)
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		s.logf("anthropic: count_tokens")
		anthropicJSON(w, map[string]any{"input_tokens": anthropicInputTokens})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		s.logf("anthropic: models")
		m := anthropicModelInfo(anthropicModel)
		anthropicJSON(w, map[string]any{"data": []any{m}, "has_more": false, "first_id": anthropicModel, "last_id": anthropicModel})
	})
	mux.HandleFunc("GET /v1/models/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.logf("anthropic: model %s", r.PathValue("id"))
		anthropicJSON(w, anthropicModelInfo(r.PathValue("id")))
	})
}

func anthropicModelInfo(id string) map[string]any {
	return map[string]any{"type": "model", "id": id, "display_name": "Stand-in " + id, "created_at": "2025-01-01T00:00:00Z"}
}

// anthropicRequest is the part of a Messages request the stand-in reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicBlock is one content block of a message or of a tool result.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // a tool result's: a string or blocks
	IsError   bool            `json:"is_error"`
}

// anthropicBlocks reads content that is either a plain string or a list
// of blocks.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []anthropicBlock{{Type: "text", Text: text}}
	}
	var blocks []anthropicBlock
	json.Unmarshal(raw, &blocks)
	return blocks
}

// reminder is the context Claude Code adds to a user's text: it is not
// what the user said.
var reminder = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)

// conversation turns a request into the first prompt and the steps: the
// prompt is the users' text (without Claude Code's system reminders), and
// each assistant tool_use is paired with the tool_result the CLI sent.
func (q anthropicRequest) conversation() (prompt string, steps []Step) {
	var texts []string
	type pending struct {
		call Call
		id   string
	}
	var uses []pending
	results := map[string]anthropicBlock{}
	for _, m := range q.Messages {
		for _, b := range anthropicBlocks(m.Content) {
			switch {
			case m.Role == "user" && b.Type == "text":
				if t := strings.TrimSpace(reminder.ReplaceAllString(b.Text, "")); t != "" {
					texts = append(texts, t)
				}
			case m.Role == "user" && b.Type == "tool_result":
				results[b.ToolUseID] = b
			case m.Role == "assistant" && b.Type == "tool_use":
				uses = append(uses, pending{Call{Tool: shortName(b.Name), Args: b.Input}, b.ID})
			}
		}
	}
	for _, u := range uses {
		r, ok := results[u.id]
		if !ok {
			continue // a call cut off before its result
		}
		steps = append(steps, Step{Call: u.call, Result: resultText(r.Content), IsError: r.IsError})
	}
	return strings.Join(texts, "\n"), steps
}

// resultText is a tool result's text: the string, or its text blocks.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var parts []string
	for _, b := range anthropicBlocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// anthropicMessages answers POST /v1/messages.
func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	var q anthropicRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		s.logf("anthropic: bad request: %v", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{
			"type": "invalid_request_error", "message": "stand-in: " + err.Error()}})
		return
	}
	if q.Model == "" {
		q.Model = anthropicModel
	}
	var offered []string
	for _, t := range q.Tools {
		offered = append(offered, t.Name)
	}
	prompt, steps := q.conversation()
	var content []map[string]any
	stop := "end_turn"
	switch {
	case len(offered) == 0:
		// A side query of Claude Code's own (a title, a topic check):
		// not the agent's turn, so not the policy's.
		s.logf("anthropic: side query (%d messages, no tools, stream %v)", len(q.Messages), q.Stream)
		content = append(content, map[string]any{"type": "text", "text": "Switchboard work"})
	default:
		s.logf("anthropic: turn with %d steps, %d tools, stream %v", len(steps), len(offered), q.Stream)
		reply := s.reply(prompt, steps)
		text := reply.Text
		if reply.Call != nil {
			name, ok := toolName(offered, reply.Call.Tool)
			if ok {
				input := reply.Call.Args
				if input == nil {
					input = map[string]any{}
				}
				content = append(content, map[string]any{"type": "tool_use", "id": anthropicID("toolu_"), "name": name, "input": input})
				stop = "tool_use"
				break
			}
			text = fmt.Sprintf("stand-in: the CLI offers no tool %s (it offers %d tools)", reply.Call.Tool, len(offered))
			s.logf("anthropic: %s", text)
		}
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	msg := map[string]any{
		"id": anthropicID("msg_"), "type": "message", "role": "assistant", "model": q.Model,
		"stop_reason": nil, "stop_sequence": nil,
	}
	if !q.Stream {
		msg["content"], msg["stop_reason"] = content, stop
		msg["usage"] = map[string]any{"input_tokens": anthropicInputTokens, "output_tokens": anthropicOutputTokens,
			"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
		anthropicJSON(w, msg)
		return
	}
	streamAnthropic(w, msg, content, stop)
}

// streamAnthropic writes the message as Server-Sent Events, the way the
// Messages API streams: message_start, each block's start, delta and
// stop, message_delta with the stop reason and usage, message_stop.
func streamAnthropic(w http.ResponseWriter, msg map[string]any, content []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	msg["content"] = []any{}
	msg["usage"] = map[string]any{"input_tokens": anthropicInputTokens, "output_tokens": 1,
		"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
	event("message_start", map[string]any{"message": msg})
	for i, b := range content {
		switch b["type"] {
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{
				"type": "input_json_delta", "partial_json": string(input)}})
		default:
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": anthropicOutputTokens},
	})
	event("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// anthropicID is a fresh id with the API's prefix for its kind.
func anthropicID(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b)
	return prefix + "standin" + hex.EncodeToString(b)
}

func anthropicJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
