package mcpserver

import (
	"encoding/json"
	"net/http"

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
	if !ok || m.Flags&Internal != 0 {
		res := h.reg.Refuse(c.principal, c.transport, msg.Params.Name, store.Deny(store.CodeMethodUnknown, "no tool %q", msg.Params.Name))
		writeResponse(w, msg.ID, nil, rpcError(-32602, &res))
		return true
	}
	// The request's context ends when the client goes away.
	res := h.reg.Invoke(r.Context(), c.principal, c.transport, m.Name, withRepository(msg.Params.Arguments, c.repositoryID, m))
	writeResponse(w, msg.ID, toolResult(&res), nil)
	return true
}

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
