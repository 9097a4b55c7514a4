package mcphttp

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/switchboard-dev/switchboard/store"
)

// fastToolCall answers tools/call of the handshake-era protocols
// (2024-11-05 through 2025-11-25) without the SDK, and reports whether it
// did. The call is the hot path of every agent, and go-sdk v1.8.0 decodes a
// request body nine times, each with a fresh 32 KiB buffer: that, and the
// garbage it makes, was most of a call's cost. The answer is the SDK's own
// CallToolResult type, marshalled as the SDK does, so the two paths cannot
// drift in shape; a test sends the same calls both ways and compares.
//
// Requests of 2026-07-28 (by header or _meta) stay with the SDK, which
// checks their headers and _meta and stamps resultType.
func (h *HTTPHandler) fastToolCall(w http.ResponseWriter, r *http.Request, msg envelope, c caller) bool {
	if *msg.Method != "tools/call" || h.noFastPath ||
		r.Header.Get("MCP-Protocol-Version") >= "2026-07-28" || msg.Params.Meta.ProtocolVersion != "" {
		return false
	}
	m, ok := h.reg.MethodForTool(msg.Params.Name)
	if !ok || m.Flags&mcpserver.Internal != 0 {
		res := h.reg.RefuseTool(c.principal, c.transport, msg.Params.Name)
		writeResponse(w, msg.ID, nil, rpcError(-32602, &res))
		return true
	}
	// The request's context ends when the client goes away.
	res := h.reg.Invoke(r.Context(), c.principal, c.transport, m.Name, withRepository(msg.Params.Arguments, c.repositoryID, m))
	if res.Err != nil {
		if c.storeUnavailable(&res) {
			// A failed request, not a tool's denial: 503, the same
			// JSON-RPC error the SDK's path answers.
			d := res.Err.(*store.Denial)
			writeRPCError(w, httpStatus(d.Code), msg.ID, jsonrpcCode(d.Code), d.Reason, map[string]any{"code": d.Code, "audit_id": res.AuditID})
			return true
		}
		writeResponse(w, msg.ID, toolResult(&res), nil)
		return true
	}
	body, err := appendToolSuccess(make([]byte, 0, 512), msg.ID, &res)
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return true
}

// appendToolSuccess appends the JSON-RPC answer to a tools/call that
// succeeded: what toolResult builds, marshalled by hand because the SDK's
// CallToolResult and a map for structuredContent cost a call more than
// its result does. The result's JSON is made once and used twice, in the
// text content and in structuredContent. TestFastPathMatchesSDK holds the
// two to the same answer.
func appendToolSuccess(b []byte, id json.RawMessage, res *mcpserver.Result) ([]byte, error) {
	result, err := json.Marshal(res.Value)
	if err != nil {
		result = []byte("null")
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	text := make([]byte, 0, len(res.Method)+len(res.AuditID)+len(result)+16)
	text = append(append(append(append(append(text, res.Method...), " ok (audit "...), res.AuditID...), ")\n"...), result...)
	if b, err = appendJSONString(b, text); err != nil {
		return nil, err
	}
	b = append(b, `}],"structuredContent":{"audit_id":`...)
	if b, err = appendJSONString(b, []byte(res.AuditID)); err != nil {
		return nil, err
	}
	b = append(b, `,"method":`...)
	if b, err = appendJSONString(b, []byte(res.Method)); err != nil {
		return nil, err
	}
	b = append(b, `,"ok":true,"result":`...)
	b = append(b, result...)
	return append(b, "}}}"...), nil
}

// appendJSONString appends s as a JSON string. Text that is not valid
// UTF-8 goes through encoding/json, which replaces what cannot be decoded.
func appendJSONString(b, s []byte) ([]byte, error) {
	if !utf8.Valid(s) {
		q, err := json.Marshal(string(s))
		return append(b, q...), err
	}
	b = append(b, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default: // other control characters, and what HTML would read
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
		}
		start = i + 1
	}
	return append(append(b, s[start:]...), '"'), nil
}

const hexDigit = "0123456789abcdef"

// writeResponse writes one JSON-RPC response: result, or rpcErr.
func writeResponse(w http.ResponseWriter, id json.RawMessage, result any, rpcErr error) {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   error           `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id, Result: result, Error: rpcErr}
	body, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
