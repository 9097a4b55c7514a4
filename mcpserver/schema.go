package mcpserver

import "encoding/json"

// MaxBodyBytes bounds one JSON-RPC request body.
const MaxBodyBytes = 4 << 20

// Instructions is what initialize tells every agent: the canonical workflow,
// short enough to sit in a system prompt.
const Instructions = `You are connected to Switchboard, the local hub that hands out work for this machine's repositories.
Workflow: call tools/list (or tools_search); session_report kind ready with your repository_id gives your session_id (a session token has one already); then work_await_packet with repository_id and session_id claims a packet under a lease.
Call work_ack to start, artifact_publish for each expected artifact, then work_complete (or work_release with a reason).
Every call after a claim carries packet_id, session_id and lease_id; lease_lost means the packet is no longer yours: stop and await again.
Report with session_report (ready, heartbeat, question, escalate); a question's answer arrives through session_await_answer.
Terminal output is never read as state: only these tools change it.`

// EnvelopeSchema is the output schema of every tool: the shape of
// structuredContent, success and denial alike, with the method's own result
// schema under "result".
func EnvelopeSchema(result json.RawMessage) json.RawMessage {
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"ok":       map[string]any{"type": "boolean", "description": "true on success; false with error set on a denial or failure"},
			"method":   map[string]any{"type": "string"},
			"audit_id": map[string]any{"type": "string", "description": "the audit record of this call"},
			"result":   result,
			"error":    map[string]any{"type": "string", "description": "the denial or error code"},
			"message":  map[string]any{"type": "string"},
			"paths":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "the files a merge_conflict, write_scope_violation or checkout_in_the_way is about (at most 20)"},
		},
		"required": []string{"ok", "method"},
	})
	return b
}
