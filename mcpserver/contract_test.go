package mcpserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"testing"
)

var updateContract = flag.Bool("update", false, "rewrite contract.json from the registry")

// TestContractFile keeps contract.json equal to the registry. Run
// `go test ./mcpserver/ -run TestContractFile -update` after changing a
// method, and review the diff.
func TestContractFile(t *testing.T) {
	f := newFixture(t)
	got, err := json.MarshalIndent(New(f.db, Options{}).Contract(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *updateContract {
		if err := os.WriteFile("contract.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("contract.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("contract.json differs from the registry: run go test ./mcpserver/ -run TestContractFile -update and review the diff")
	}
}

// TestContractToolNames checks the rules real clients impose on tool names:
// ^[a-z][a-z0-9_]*$, at most 40 characters, unique, and every method that
// agents may see takes an object and has annotations that are honest.
func TestContractToolNames(t *testing.T) {
	f := newFixture(t)
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]string{}
	for _, m := range New(f.db, Options{}).Contract() {
		if !valid.MatchString(m.Tool) || len(m.Tool) > 40 {
			t.Errorf("tool name %q of %s breaks the client rules", m.Tool, m.Method)
		}
		if prev, dup := seen[m.Tool]; dup {
			t.Errorf("tool name %q of %s collides with %s", m.Tool, m.Method, prev)
		}
		seen[m.Tool] = m.Method
		var in struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.InputSchema, &in) != nil || in.Type != "object" {
			t.Errorf("%s: input schema is not an object schema", m.Method)
		}
		if (m.Capability == "admin" || m.Capability == "work:author") && !m.Hidden && !m.Internal {
			t.Errorf("%s needs %s, which MCP must never reach: mark it Hidden", m.Method, m.Capability)
		}
	}
}
