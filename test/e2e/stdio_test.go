package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioBridge is an agent CLI that only starts commands: it runs
// `switchboard mcp --stdio` with the client token in its environment and
// gets the same tools, denials and audit as over HTTP.
func TestStdioBridge(t *testing.T) {
	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	waitEndpoint(t, p, d, 15*time.Second)
	tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	if !tokenRE.MatchString(tok) {
		t.Fatal("token client printed something that is not a token")
	}

	bridge := &proc{t: t}
	cmd := exec.Command(buildBinary(t), "mcp", "--stdio")
	cmd.Env = d.env(false, "SWITCHBOARD_MCP_TOKEN="+tok)
	cmd.Stderr = bridge
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\n%s", err, bridge.Output())
	}
	if init := cs.InitializeResult(); !strings.Contains(init.Instructions, "work_await_packet") || init.ServerInfo.Name != "switchboard" {
		t.Errorf("initialize: %+v", init)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " status ") {
		t.Errorf("tools/list: %v", names)
	}

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil {
		t.Fatal(err)
	}
	sc := structuredMap(t, res)
	auditID, _ := sc["audit_id"].(string)
	if res.IsError || sc["ok"] != true || !strings.HasPrefix(auditID, "aud_") {
		t.Fatalf("status over stdio: %v", sc)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "token_create", Arguments: map[string]any{"label": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if sc := structuredMap(t, res); !res.IsError || sc["error"] != "tool_hidden" {
		t.Errorf("token_create over stdio: %v", sc)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the bridge exited %d after stdin closed:\n%s", code, bridge.Output())
	}

	var audit struct {
		Records []struct {
			ID, Transport, Method, Outcome, KeyID string
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, env, "audit", "--json", "--method", "status")), &audit); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rec := range audit.Records {
		if rec.ID == auditID {
			found = rec.Transport == "mcp-stdio" && rec.Outcome == "ok" && strings.HasPrefix(tok, "sbt_"+rec.KeyID+"_")
		}
	}
	if !found {
		t.Errorf("no mcp-stdio audit record %s: %+v", auditID, audit.Records)
	}
	if strings.Contains(bridge.Output(), tok) || strings.Contains(p.Output(), tok) {
		t.Error("the token was printed")
	}

	// Once Switchboard stops, the bridge says so instead of hanging.
	p.stop()
	cmd = exec.Command(buildBinary(t), "mcp", "--stdio")
	cmd.Env = d.env(false, "SWITCHBOARD_MCP_TOKEN="+tok)
	_, err = client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil || !strings.Contains(err.Error(), "Switchboard is not running") {
		t.Errorf("connect with Switchboard stopped: %v", err)
	}
}

func structuredMap(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s", b)
	}
	return m
}
