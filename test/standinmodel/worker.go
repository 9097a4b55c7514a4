package standinmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// The tools the worker calls, by Switchboard's names.
const (
	ToolAwait    = "work_await_packet"
	ToolAck      = "work_ack"
	ToolPublish  = "artifact_publish"
	ToolComplete = "work_complete"
)

var repoInPrompt = regexp.MustCompile(`repository_id "(repo_[A-Za-z0-9_-]+)"`)

// Worker is the agent a test wants: it claims packets of the repository the
// bootstrap prompt names, acks each, publishes one artifact (the first the
// packet expects, else "notes"), completes it, and claims again, until it
// has completed max packets or a claim comes back empty. Any error result
// ends its turn with that text, so a test sees why.
func Worker(max int) Policy {
	return func(prompt string, steps []Step) Reply {
		m := repoInPrompt.FindStringSubmatch(prompt)
		if m == nil {
			return Reply{Text: "stand-in: the prompt names no repository_id"}
		}
		repo := m[1]
		await := Reply{Call: &Call{Tool: ToolAwait, Args: map[string]any{"repository_id": repo, "wait_seconds": 3}}}
		if len(steps) == 0 {
			return await
		}
		last := steps[len(steps)-1]
		if ok, _ := outcome(last.Result); last.IsError || !ok {
			return Reply{Text: fmt.Sprintf("stand-in: %s failed: %s", last.Call.Tool, last.Result)}
		}
		claim, ok := lastClaim(steps)
		switch last.Call.Tool {
		case ToolAwait:
			if !ok {
				return Reply{Text: fmt.Sprintf("stand-in: no more work after %d packets", completed(steps))}
			}
			return Reply{Call: &Call{Tool: ToolAck, Args: claim.leased(nil)}}
		case ToolAck:
			name := "notes"
			if len(claim.Packet.Expected) > 0 {
				name = claim.Packet.Expected[0].Name
			}
			return Reply{Call: &Call{Tool: ToolPublish, Args: claim.leased(map[string]any{
				"name": name, "content": "done by the stand-in model for " + claim.Packet.Title,
			})}}
		case ToolPublish:
			return Reply{Call: &Call{Tool: ToolComplete, Args: claim.leased(map[string]any{"summary": "stand-in: " + claim.Packet.Title})}}
		case ToolComplete:
			if completed(steps) >= max {
				return Reply{Text: fmt.Sprintf("stand-in: completed %d packets", completed(steps))}
			}
			return await
		}
		return Reply{Text: "stand-in: nothing to do after " + last.Call.Tool}
	}
}

// claim is what a work_await_packet result says, as far as the worker reads it.
type claim struct {
	Packet *struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Expected []struct {
			Name string `json:"name"`
		} `json:"expected_artifacts"`
	} `json:"packet"`
	LeaseID string `json:"lease_id"`
}

func (c claim) leased(args map[string]any) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	args["packet_id"], args["lease_id"] = c.Packet.ID, c.LeaseID
	return args
}

// lastClaim reads the newest await result; ok is false when it holds no
// packet. A result is "tool.name ok (audit …)" and then the JSON.
func lastClaim(steps []Step) (claim, bool) {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Call.Tool != ToolAwait {
			continue
		}
		var c claim
		if _, result := outcome(steps[i].Result); result != "" {
			json.NewDecoder(strings.NewReader(result)).Decode(&c)
		}
		return c, c.Packet != nil && c.LeaseID != ""
	}
	return claim{}, false
}

// outcome reads a tool result in either form a CLI shows it: Switchboard's
// text, "tool.name ok (audit …)" and then the result's JSON, or its
// structuredContent, {"ok":true,"result":{…},…}, which Claude Code gives
// the model instead of the text. result is the result's JSON, "" when
// there is none.
func outcome(text string) (ok bool, result string) {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		var s struct {
			OK     *bool           `json:"ok"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(t), &s) == nil && s.OK != nil {
			return *s.OK, string(s.Result)
		}
	}
	if j := strings.IndexByte(text, '{'); j >= 0 {
		result = text[j:]
	}
	return strings.Contains(text, " ok (audit "), result
}

func completed(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.Call.Tool == ToolComplete && !s.IsError {
			n++
		}
	}
	return n
}
