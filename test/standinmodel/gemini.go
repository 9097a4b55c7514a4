package standinmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Gemini API as Gemini CLI calls it with GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL pointing here (the @google/genai SDK reads that
// variable): POST /v1beta/models/{model}:{method}, where method is
// streamGenerateContent (?alt=sse) for the agent's turns, generateContent
// for its side questions (next-speaker check, routing, loop detection,
// each asking for JSON by schema) and countTokens.

// geminiUsage is what every answer reports: the CLI shows it in /stats and
// in its footer, and tests of usage per session read it from there.
var geminiUsage = map[string]int{"promptTokenCount": 1200, "candidatesTokenCount": 40, "totalTokenCount": 1240}

// geminiRequest is the part of a GenerateContentRequest the stand-in reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseSchema     map[string]any `json:"responseSchema"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         string `json:"text,omitempty"`
	Thought      bool   `json:"thought,omitempty"`
	FunctionCall *struct {
		ID   string         `json:"id,omitempty"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string         `json:"id,omitempty"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func (s *Server) geminiRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("POST /v1/models/{call}", s.gemini)
}

// gemini answers one call; {call} is "model:method".
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	var req geminiRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.logf("gemini %s %s: bad body: %v", model, method, err)
		geminiError(w, http.StatusBadRequest, "stand-in: "+err.Error())
		return
	}
	switch method {
	case "countTokens":
		n := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				n += len(p.Text) / 4
			}
		}
		geminiJSON(w, map[string]any{"totalTokens": n})
	case "generateContent":
		if schema := req.schema(); schema != nil || req.GenerationConfig.ResponseMimeType == "application/json" {
			// A side question with a JSON answer: the CLI parses it and
			// carries on; the values are the schema's first choices
			// ("user" for the next speaker, the first model route).
			b, _ := json.Marshal(fromSchema(schema))
			s.logf("gemini %s generateContent (json) → %s", model, b)
			geminiJSON(w, geminiChunk(geminiPart{Text: string(b)}))
			return
		}
		part := s.geminiTurn(model, req)
		geminiJSON(w, geminiChunk(part))
	case "streamGenerateContent":
		part := s.geminiTurn(model, req)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		b, _ := json.Marshal(geminiChunk(part))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	default:
		s.logf("gemini %s:%s: not a stand-in method", model, method)
		geminiError(w, http.StatusNotFound, "stand-in: no method "+method)
	}
}

// geminiTurn is the model's next turn in the agent's conversation.
func (s *Server) geminiTurn(model string, req geminiRequest) geminiPart {
	prompt, steps := req.conversation()
	var offered []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			offered = append(offered, d.Name)
		}
	}
	s.logf("gemini %s: %d contents, %d steps, %d tools", model, len(req.Contents), len(steps), len(offered))
	rep := s.reply(prompt, steps)
	if rep.Call == nil {
		return geminiPart{Text: rep.Text}
	}
	name, ok := toolName(offered, rep.Call.Tool)
	if !ok {
		return geminiPart{Text: fmt.Sprintf("stand-in: the CLI offered no %s (offered %d tools: %s)", rep.Call.Tool, len(offered), strings.Join(offered, ", "))}
	}
	var p geminiPart
	p.FunctionCall = &struct {
		ID   string         `json:"id,omitempty"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}{Name: name, Args: rep.Call.Args}
	return p
}

// conversation turns the contents into the prompt (the text the user gave,
// the bootstrap prompt among it) and the steps: each functionCall of a
// model turn with the functionResponse that answers it (by id, else by
// name in order).
func (req geminiRequest) conversation() (string, []Step) {
	type call struct {
		step     Step
		id, name string
		answered bool
	}
	var texts []string
	var calls []call
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				fc := p.FunctionCall
				calls = append(calls, call{step: Step{Call: Call{Tool: shortName(fc.Name), Args: fc.Args}}, id: fc.ID, name: fc.Name})
			case p.FunctionResponse != nil:
				fr := p.FunctionResponse
				for i := range calls {
					c := &calls[i]
					if c.answered || c.name != fr.Name || fr.ID != "" && c.id != "" && fr.ID != c.id {
						continue
					}
					c.step.Result, c.step.IsError = geminiResult(fr.Response)
					c.answered = true
					break
				}
			case c.Role == "user" && p.Text != "" && !p.Thought:
				texts = append(texts, p.Text)
			}
		}
	}
	// A call with no response yet is not a step.
	var steps []Step
	for _, c := range calls {
		if c.answered {
			steps = append(steps, c.step)
		}
	}
	return strings.Join(texts, "\n"), steps
}

// geminiResult is a functionResponse's text: Gemini CLI puts a tool's
// output in response.output (an MCP tool's text wrapped in
// <untrusted_context>) and a failure in response.error.
func geminiResult(resp map[string]any) (string, bool) {
	if e, ok := resp["error"]; ok {
		return fmt.Sprint(e), true
	}
	if o, ok := resp["output"].(string); ok {
		return o, false
	}
	b, _ := json.Marshal(resp)
	return string(b), false
}

func (req geminiRequest) schema() map[string]any {
	if req.GenerationConfig.ResponseJSONSchema != nil {
		return req.GenerationConfig.ResponseJSONSchema
	}
	return req.GenerationConfig.ResponseSchema
}

// fromSchema is a value the schema accepts: each property with its first
// enum value, an empty string, zero, false or an empty list.
func fromSchema(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "string":
		return "stand-in"
	case "number", "integer":
		return 0
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	obj := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for k, v := range props {
		sub, _ := v.(map[string]any)
		obj[k] = fromSchema(sub)
	}
	return obj
}

// geminiChunk is a whole GenerateContentResponse holding one part.
func geminiChunk(p geminiPart) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{p}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": geminiUsage,
		"modelVersion":  "stand-in",
	}
}

func geminiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": "INVALID_ARGUMENT"}})
}

func geminiJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
