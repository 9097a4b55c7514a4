package standinmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// The OpenAI dialect: the Responses API as Codex calls it through a custom
// model provider (wire_api = "responses", base_url = <stand-in>/v1). Codex
// sends the whole conversation as input items each turn and reads the
// answer as server-sent events.
//
// Codex offers tools in one of two ways, chosen by the model's entry in its
// catalog. Its current models are "code mode only": the request offers a
// single custom tool, exec, which runs JavaScript in which every other
// tool, MCP ones included, is a function (tools.mcp__switchboard__
// work_await_packet); the tool list arrives in an additional_tools input
// item. Older models (gpt-5.5) get function tools in the request's
// "tools", but MCP ones deferred behind Codex's tool_search: the model
// searches, Codex answers with a tool_search_output holding the
// namespace (mcp__switchboard) and its tools, and a call names both
// "namespace" and "name". The stand-in answers in whichever way the
// request offers.

// openaiRoutes serves POST /v1/responses, all Codex asks of a custom
// provider (no model list, no websocket when the provider says
// supports_websockets = false).
func (s *Server) openaiRoutes(mux *http.ServeMux) {
	var seq atomic.Int64
	mux.HandleFunc("POST /v1/responses", func(w http.ResponseWriter, r *http.Request) {
		var req responsesRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			s.logf("POST /v1/responses: bad body: %v", err)
			http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
			return
		}
		id := fmt.Sprintf("resp_%d", seq.Add(1))
		if req.Text.Format.Type == "json_schema" {
			// Codex asks on the side for a title for the thread, with an
			// output schema: not a turn of the agent.
			s.logf("POST /v1/responses: structured output %q, answered with a title", req.Text.Format.Name)
			writeResponseStream(w, id, responsesAnswer{text: `{"title":"Work the Switchboard queue"}`}, req.Model)
			return
		}
		prompt, steps := req.conversation()
		offered := req.offered()
		s.logf("POST /v1/responses: %d input items, %d steps, %d tools", len(req.Input), len(steps), len(offered))
		if n := len(steps); n > 0 {
			s.logf("  result of %s (error %v): %.300q", steps[n-1].Call.Tool, steps[n-1].IsError, steps[n-1].Result)
		}
		a := answerFor(s.reply(prompt, steps), offered)
		if a.call != nil && a.call["type"] == "tool_search_call" {
			s.logf("  (not offered yet: searching with tool_search)")
		}
		writeResponseStream(w, id, a, req.Model)
	})
}

// responsesRequest is the part of a Responses API request the stand-in reads.
type responsesRequest struct {
	Model string          `json:"model"`
	Input []responsesItem `json:"input"`
	Tools []responsesTool `json:"tools"`
	Text  struct {
		Format struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"format"`
	} `json:"text"`
}

// responsesItem is one input item: a message, a call the model made
// earlier (function_call, custom_tool_call, tool_search_call), its output,
// or tools offered (additional_tools, tool_search_output).
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string; an object in a tool_search_call
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Tools     []responsesTool `json:"tools"`
}

// responsesTool is one offered tool; a namespace groups tools (Codex puts
// each MCP server's tools in one) and names them without the prefix.
type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

// offeredTool is a tool as a call names it.
type offeredTool struct {
	full      string // namespace__name, the form toolName reads
	namespace string // "" outside a namespace
	name      string
	custom    bool // a custom (free-form input) tool such as exec
	search    bool // Codex's own tool_search, which loads deferred tools
}

// offered lists the tools of the request, of its additional_tools items
// and of the tool_search_output items that loaded deferred ones. Tools in
// the namespace "functions" are the API's plain functions and keep their
// bare names.
func (q *responsesRequest) offered() []offeredTool {
	var out []offeredTool
	var add func(ns string, ts []responsesTool)
	add = func(ns string, ts []responsesTool) {
		for _, t := range ts {
			switch {
			case t.Type == "namespace":
				add(t.Name, t.Tools)
			case t.Type == "tool_search":
				out = append(out, offeredTool{full: "tool_search", search: true})
			case t.Name != "":
				o := offeredTool{full: t.Name, name: t.Name, custom: t.Type == "custom"}
				if ns != "" && ns != "functions" {
					o.namespace, o.full = ns, joinNamespace(ns, t.Name)
				}
				out = append(out, o)
			}
		}
	}
	add("", q.Tools)
	for _, it := range q.Input {
		if it.Type == "additional_tools" || it.Type == "tool_search_output" {
			add("", it.Tools)
		}
	}
	return out
}

// joinNamespace is Codex's full name for a namespaced tool: it ends the
// namespace with "__" (mcp__switchboard__work_await_packet), whether or not
// the namespace already does.
func joinNamespace(ns, name string) string {
	if ns == "" {
		return name
	}
	return strings.TrimSuffix(ns, "__") + "__" + name
}

// conversation reads the prompt (the first user message that is not
// Codex's own context) and the steps: each call paired with its output
// by call_id, in order.
func (q *responsesRequest) conversation() (string, []Step) {
	var prompt string
	var steps []Step
	byCall := map[string]int{}
	for _, it := range q.Input {
		switch it.Type {
		case "message", "":
			if t := contentText(it.Content); it.Role == "user" && prompt == "" && !isContextBlock(t) {
				prompt = t
			}
		case "function_call":
			var text string
			var args map[string]any
			json.Unmarshal(it.Arguments, &text)
			json.Unmarshal([]byte(text), &args)
			byCall[it.CallID] = len(steps)
			steps = append(steps, Step{Call: Call{Tool: shortName(joinNamespace(it.Namespace, it.Name)), Args: args}})
		case "custom_tool_call":
			c, ok := callInScript(it.Input)
			if !ok {
				continue
			}
			byCall[it.CallID] = len(steps)
			steps = append(steps, Step{Call: c})
		case "function_call_output", "custom_tool_call_output":
			i, ok := byCall[it.CallID]
			if !ok {
				continue
			}
			steps[i].Result, steps[i].IsError = outputText(it.Output)
			if it.Type == "custom_tool_call_output" {
				steps[i].Result, steps[i].IsError = scriptResult(steps[i].Result)
			} else {
				steps[i].Result = withoutTiming(steps[i].Result)
			}
		}
	}
	return prompt, steps
}

// isContextBlock tells Codex's own user-role context (<environment_context>,
// AGENTS.md instructions), sent before the person's prompt, from the prompt.
func isContextBlock(t string) bool {
	t = strings.TrimSpace(t)
	return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md")
}

// contentText joins a message's text parts; content is a string or a list
// of {type, text}.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// outputText reads a call's output: a string, a list of content parts, or
// an object {content, success}.
func outputText(raw json.RawMessage) (text string, isError bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		return contentText(obj.Content), obj.Success != nil && !*obj.Success
	}
	return contentText(raw), false
}

// withoutTiming drops the lines Codex puts before an MCP tool's output in
// a function_call_output ("Wall time: 0.01 seconds", "Output:"); what
// follows is the tool's structuredContent as JSON, or its text.
func withoutTiming(out string) string {
	if !strings.HasPrefix(out, "Wall time:") {
		return out
	}
	if _, rest, ok := strings.Cut(out, "\nOutput:\n"); ok {
		return rest
	}
	return out
}

// The script the stand-in sends exec in code mode. Its first line names
// the call (so the next request's steps can be read back from the
// conversation); it prints the result's text between markers, so what
// Codex adds around a script's output (its status, wall time) is left out.
const (
	scriptCallLine = "// stand-in call: "
	scriptBegin    = "<<stand-in result>>"
	scriptEnd      = "<<end of stand-in result>>"
	scriptError    = "<<stand-in error>>"
)

// callScript is the JavaScript that makes call c through exec's tools
// object, as fn, and prints the MCP result's text content.
func callScript(c Call, fn string) string {
	head, _ := json.Marshal(c)
	args, _ := json.Marshal(c.Args)
	if c.Args == nil {
		args = []byte("{}")
	}
	return fmt.Sprintf(`%s%s
let out = "", failed = false;
try {
  const r = await tools[%q](%s);
  if (typeof r === "string") {
    out = r;
  } else {
    failed = !!(r && r.isError);
    out = ((r && r.content) || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  }
} catch (e) {
  failed = true;
  out = String(e && e.stack || e);
}
text(%q + (failed ? %q : "") + out + %q);
`, scriptCallLine, head, fn, args, scriptBegin, scriptError, scriptEnd)
}

// callInScript reads back the call a stand-in script made.
func callInScript(src string) (Call, bool) {
	line, _, _ := strings.Cut(src, "\n")
	rest, ok := strings.CutPrefix(line, scriptCallLine)
	if !ok {
		return Call{}, false
	}
	var c Call
	if json.Unmarshal([]byte(rest), &c) != nil || c.Tool == "" {
		return Call{}, false
	}
	return c, true
}

// scriptResult picks the result out of exec's output. Output without the
// markers (the script did not run, or failed to parse) is an error,
// returned whole so the policy's message shows it.
func scriptResult(out string) (string, bool) {
	_, after, ok := strings.Cut(out, scriptBegin)
	if !ok {
		return out, true
	}
	res, _, _ := strings.Cut(after, scriptEnd)
	if r, failed := strings.CutPrefix(res, scriptError); failed {
		return r, true
	}
	return res, false
}

// responsesAnswer is the one output item of a response: a function call,
// a custom tool call, a tool search, or a message.
type responsesAnswer struct {
	call map[string]any // a function_call, custom_tool_call or tool_search_call item
	text string
}

// answerFor turns the policy's reply into an output item: a direct
// function call when Codex offered the tool as one, else a script for
// exec (code mode), else a search for it with tool_search (Codex defers
// MCP tools), else a message saying what was missing.
func answerFor(reply Reply, offered []offeredTool) responsesAnswer {
	if reply.Call == nil {
		return responsesAnswer{text: reply.Text}
	}
	full := make([]string, len(offered))
	for i, o := range offered {
		full[i] = o.full
	}
	if name, ok := toolName(full, reply.Call.Tool); ok {
		o := offered[indexOf(full, name)]
		args, _ := json.Marshal(reply.Call.Args)
		item := map[string]any{"type": "function_call", "name": o.name, "arguments": string(args)}
		if o.namespace != "" {
			item["namespace"] = o.namespace
		}
		return responsesAnswer{call: item}
	}
	for _, o := range offered {
		if o.custom && o.name == "exec" && o.namespace == "" {
			// In exec, an MCP tool is tools.mcp__<server>__<tool>.
			fn := "mcp__switchboard__" + reply.Call.Tool
			return responsesAnswer{call: map[string]any{"type": "custom_tool_call", "name": "exec", "input": callScript(*reply.Call, fn)}}
		}
	}
	for _, o := range offered {
		if o.search {
			// Codex defers MCP tools behind its tool_search: search for the
			// tool; the next request offers what it found.
			return responsesAnswer{call: map[string]any{"type": "tool_search_call", "execution": "client",
				"arguments": map[string]any{"query": "switchboard " + reply.Call.Tool, "limit": 8}}}
		}
	}
	return responsesAnswer{text: fmt.Sprintf("stand-in: the CLI offered no tool %s (it offered %s)", reply.Call.Tool, strings.Join(full, ", "))}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// sseWriter writes server-sent events, each "event: type" and its JSON.
type sseWriter struct {
	w   http.ResponseWriter
	seq int
}

func (e *sseWriter) send(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = e.seq
	e.seq++
	b, _ := json.Marshal(fields)
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", typ, b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// writeResponseStream streams a as one response with one output item,
// the way the Responses API does: created, the item added, its deltas,
// the item done, completed with the usage.
func writeResponseStream(w http.ResponseWriter, id string, a responsesAnswer, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &sseWriter{w: w}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	e.send("response.created", map[string]any{"response": resp})
	e.send("response.in_progress", map[string]any{"response": resp})

	var item map[string]any
	at := func(fields map[string]any) map[string]any {
		fields["output_index"] = 0
		fields["item_id"] = item["id"]
		return fields
	}
	switch {
	case a.call != nil && a.call["type"] == "custom_tool_call":
		item = with(a.call, map[string]any{"id": "ctc_" + id, "call_id": "call_" + id, "status": "completed"})
		e.send("response.output_item.added", map[string]any{"output_index": 0, "item": with(item, map[string]any{"input": "", "status": "in_progress"})})
		e.send("response.custom_tool_call_input.delta", at(map[string]any{"delta": item["input"]}))
		e.send("response.custom_tool_call_input.done", at(map[string]any{"input": item["input"]}))
	case a.call != nil && a.call["type"] == "tool_search_call":
		item = with(a.call, map[string]any{"id": "ts_" + id, "call_id": "call_" + id, "status": "completed"})
		e.send("response.output_item.added", map[string]any{"output_index": 0, "item": with(item, map[string]any{"status": "in_progress"})})
	case a.call != nil:
		item = with(a.call, map[string]any{"id": "fc_" + id, "call_id": "call_" + id, "status": "completed"})
		e.send("response.output_item.added", map[string]any{"output_index": 0, "item": with(item, map[string]any{"arguments": "", "status": "in_progress"})})
		e.send("response.function_call_arguments.delta", at(map[string]any{"delta": item["arguments"]}))
		e.send("response.function_call_arguments.done", at(map[string]any{"arguments": item["arguments"]}))
	default:
		part := map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed", "content": []any{part}}
		e.send("response.output_item.added", map[string]any{"output_index": 0, "item": with(item, map[string]any{"status": "in_progress", "content": []any{}})})
		e.send("response.content_part.added", at(map[string]any{"content_index": 0, "part": with(part, map[string]any{"text": ""})}))
		e.send("response.output_text.delta", at(map[string]any{"content_index": 0, "delta": a.text}))
		e.send("response.output_text.done", at(map[string]any{"content_index": 0, "text": a.text}))
		e.send("response.content_part.done", at(map[string]any{"content_index": 0, "part": part}))
	}
	e.send("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	e.send("response.completed", map[string]any{"response": with(resp, map[string]any{
		"status": "completed", "output": []any{item},
		"usage": map[string]any{
			"input_tokens": 1200, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 40, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": 1240,
		},
	})})
}

// with is a copy of m with the fields of more set.
func with(m, more map[string]any) map[string]any {
	out := make(map[string]any, len(m)+len(more))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}
