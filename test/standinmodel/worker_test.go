package standinmodel

import (
	"reflect"
	"strings"
	"testing"
)

// workerResult is a tool result as Switchboard writes its text content: the
// method, "ok (audit …)", then the result's JSON.
func workerResult(method, json string) string {
	return method + " ok (audit aud_0000000000000001)\n" + json
}

func TestWorker(t *testing.T) {
	const prompt = `You are a Switchboard agent. Call work_await_packet with repository_id "repo_abc" and session_id "ses_1".`
	claimed := Step{
		Call:   Call{Tool: ToolAwait, Args: map[string]any{"repository_id": "repo_abc"}},
		Result: workerResult("work.await_packet", `{"packet":{"id":"pkt_1","title":"Packet 1","expected_artifacts":[{"name":"report","kind":"text"}]},"lease_id":"lse_1"}`),
	}
	claimedNoArtifacts := claimed
	claimedNoArtifacts.Result = workerResult("work.await_packet", `{"packet":{"id":"pkt_1","title":"Packet 1"},"lease_id":"lse_1"}`)
	// Gemini CLI wraps an MCP tool's text as untrusted context.
	claimedWrapped := claimed
	claimedWrapped.Result = "<untrusted_context>\n" + claimed.Result + "\n</untrusted_context>"
	empty := Step{Call: claimed.Call, Result: workerResult("work.await_packet", `{"packet":null}`)}
	acked := Step{Call: Call{Tool: ToolAck}, Result: workerResult("work.ack", `{"state":"in_progress"}`)}
	published := Step{Call: Call{Tool: ToolPublish}, Result: workerResult("artifact.publish", `{"artifact":{"id":"art_1"}}`)}
	completedStep := Step{Call: Call{Tool: ToolComplete}, Result: workerResult("work.complete", `{"state":"done"}`)}
	leased := map[string]any{"packet_id": "pkt_1", "lease_id": "lse_1"}
	await := &Call{Tool: ToolAwait, Args: map[string]any{"repository_id": "repo_abc", "wait_seconds": 3}}

	tests := []struct {
		name   string
		prompt string
		max    int
		steps  []Step
		call   *Call  // the call wanted, or nil for a final text
		text   string // a part of the final text
	}{
		{name: "no steps: await", steps: nil, call: await},
		{name: "no repository in the prompt", prompt: "hello", text: "names no repository_id"},
		{name: "claimed: ack", steps: []Step{claimed}, call: &Call{Tool: ToolAck, Args: leased}},
		{name: "claimed, wrapped as untrusted context: ack", steps: []Step{claimedWrapped}, call: &Call{Tool: ToolAck, Args: leased}},
		{name: "acked: publish the expected artifact", steps: []Step{claimed, acked}, call: &Call{Tool: ToolPublish, Args: map[string]any{
			"packet_id": "pkt_1", "lease_id": "lse_1", "name": "report", "content": "done by the stand-in model for Packet 1"}}},
		{name: "acked, nothing expected: publish notes", steps: []Step{claimedNoArtifacts, acked}, call: &Call{Tool: ToolPublish, Args: map[string]any{
			"packet_id": "pkt_1", "lease_id": "lse_1", "name": "notes", "content": "done by the stand-in model for Packet 1"}}},
		{name: "published: complete", steps: []Step{claimed, acked, published}, call: &Call{Tool: ToolComplete, Args: map[string]any{
			"packet_id": "pkt_1", "lease_id": "lse_1", "summary": "stand-in: Packet 1"}}},
		{name: "completed, more to do: await", max: 2, steps: []Step{claimed, acked, published, completedStep}, call: await},
		{name: "completed max: final text", max: 1, steps: []Step{claimed, acked, published, completedStep}, text: "completed 1 packets"},
		{name: "empty claim: final text", steps: []Step{claimed, acked, published, completedStep, empty}, text: "no more work after 1 packets"},
		{name: "error result: final text", steps: []Step{claimed, {Call: Call{Tool: ToolAck}, Result: "lease_lost: the lease expired", IsError: true}},
			text: "work_ack failed: lease_lost"},
		{name: "result that is not ok: final text", steps: []Step{{Call: claimed.Call, Result: `{"error":"tool_hidden"}`}},
			text: "work_await_packet failed"},
		{name: "unknown tool: final text", steps: []Step{{Call: Call{Tool: "status"}, Result: workerResult("status", `{}`)}},
			text: "nothing to do after status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, max := tt.prompt, tt.max
			if p == "" {
				p = prompt
			}
			if max == 0 {
				max = 3
			}
			got := Worker(max)(p, tt.steps)
			switch {
			case tt.call != nil && (got.Call == nil || !reflect.DeepEqual(*got.Call, *tt.call)):
				t.Errorf("reply %+v (call %+v), want call %+v", got, got.Call, *tt.call)
			case tt.call == nil && (got.Call != nil || !strings.Contains(got.Text, tt.text)):
				t.Errorf("reply %+v (call %+v), want a final text with %q", got, got.Call, tt.text)
			}
		})
	}
}
