package profile

import (
	"errors"
	"strings"
	"testing"
)

func TestPermissionValid(t *testing.T) {
	tests := []struct {
		p    Permission
		ok   bool
		want Permission // Or()
	}{
		{"", true, PermissionAsk},
		{"ask", true, PermissionAsk},
		{"edits", true, PermissionEdits},
		{"auto", true, PermissionAuto},
		{"yolo", false, "yolo"},
		{"Auto", false, "Auto"},
	}
	for _, tt := range tests {
		if got := tt.p.Valid(); got != tt.ok {
			t.Errorf("%q.Valid() = %v, want %v", tt.p, got, tt.ok)
		}
		if err := CheckPermission(tt.p); (err == nil) != tt.ok || err != nil && !isInvalid(err) {
			t.Errorf("CheckPermission(%q) = %v", tt.p, err)
		}
		if got := tt.p.Or(); got != tt.want {
			t.Errorf("%q.Or() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestProfilePermissions(t *testing.T) {
	base := Profile{ID: "x", Name: "X", Command: "x", Prompt: PromptNone}
	tests := []struct {
		name   string
		perms  map[Permission][]string
		want   string // a piece of the error, "" for valid
		offers []Permission
	}{
		{"none offers ask", nil, "", []Permission{"", PermissionAsk}},
		{"all three", map[Permission][]string{"ask": {"--mode", "ask"}, "edits": {"--mode=edits"}, "auto": {"--yolo"}}, "",
			[]Permission{"", PermissionAsk, PermissionEdits, PermissionAuto}},
		{"only edits and auto", map[Permission][]string{"edits": nil, "auto": {"--yolo"}}, "", []Permission{PermissionEdits, PermissionAuto}},
		{"unknown mode", map[Permission][]string{"yolo": {"--yolo"}}, `"yolo" is not a mode`, nil},
		{"empty mode", map[Permission][]string{"": {"--yolo"}}, "is not a mode", nil},
		{"unknown placeholder", map[Permission][]string{"auto": {"--dir={worktree}"}}, "{worktree}", nil},
		{"not text", map[Permission][]string{"auto": {"a\x00"}}, "not text", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			p.Permissions = tt.perms
			err := p.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.want) || !isInvalid(err) {
				t.Fatalf("Validate = %v, want invalid_argument with %q", err, tt.want)
			}
			for _, m := range Permissions() {
				want := false
				for _, o := range tt.offers {
					want = want || o.Or() == m
				}
				if tt.want == "" && p.Offers(m) != want {
					t.Errorf("Offers(%q) = %v, want %v", m, p.Offers(m), want)
				}
			}
		})
	}
}

func TestProfileValidate(t *testing.T) {
	good := Profile{ID: "claude-work", Name: "Claude (work)", Command: "claude", Args: []string{"--mcp-config", "{mcp_config}", "{prompt}"}, Prompt: PromptArgument, MCPConfig: MCPConfigClaude}
	tests := []struct {
		name string
		edit func(p *Profile)
		want string // "" for valid, else a piece of the message
	}{
		{"good", func(p *Profile) {}, ""},
		{"codex braces are literal", func(p *Profile) {
			p.Args = []string{"-c", `mcp_servers.switchboard={url="{endpoint}",bearer_token_env_var="SWITCHBOARD_MCP_TOKEN"}`}
		}, ""},
		{"bad id", func(p *Profile) { p.ID = "Claude" }, "profile id"},
		{"empty name", func(p *Profile) { p.Name = " " }, "profile name"},
		{"no command", func(p *Profile) { p.Command = "" }, "command is empty"},
		{"unknown delivery", func(p *Profile) { p.Prompt = "stdin" }, "prompt delivery"},
		{"unknown config", func(p *Profile) { p.MCPConfig = "vscode" }, "mcp_config"},
		{"unknown placeholder", func(p *Profile) { p.Args = []string{"{token}"} }, "{token}"},
		{"misspelt placeholder inside braces", func(p *Profile) {
			p.Args = []string{"-c", `x={url="{endpont}"}`}
		}, "{endpont}"},
		{"placeholder after braces", func(p *Profile) { p.Args = []string{"{a}{token}"} }, "{a}"},
		{"name with digits", func(p *Profile) { p.Args = []string{"--x={port2}"} }, "{port2}"},
		{"json is literal", func(p *Profile) { p.Args = []string{`{"a":{"b":1}}`, "{ }", "{Endpoint}", "{"} }, ""},
		{"env not a pair", func(p *Profile) { p.Env = []string{"FOO"} }, "NAME=value"},
		{"env sets ours", func(p *Profile) { p.Env = []string{"SWITCHBOARD_MCP_TOKEN=x"} }, "SWITCHBOARD_"},
		{"nul", func(p *Profile) { p.Args = []string{"a\x00b"} }, "not text"},
		{"huge", func(p *Profile) { p.Notes = strings.Repeat("x", 70<<10) }, "64 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good
			p.Args = append([]string(nil), good.Args...)
			tt.edit(&p)
			err := p.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want an error with %q", err, tt.want)
			case tt.want != "" && !isInvalid(err):
				t.Fatalf("error %T, want an *InvalidError", err)
			}
		})
	}
}

func TestProfileConversation(t *testing.T) {
	base := Profile{ID: "x", Name: "X", Command: "x", Prompt: PromptArgument}
	for _, tc := range []struct {
		name       string
		conv       *Conversation
		ok         bool
		makes, can bool
	}{
		{"none", nil, true, false, false},
		{"made and resumed by flags", &Conversation{StartArgs: []string{"--session-id", "{conversation_id}"}, ResumeArgs: []string{"--resume", "{conversation_id}"}}, true, true, true},
		{"found, resumed by a subcommand", &Conversation{ResumePrefix: []string{"resume", "{conversation_id}"}, Find: FindCodex}, true, false, true},
		{"unknown finder", &Conversation{Find: "guess"}, false, false, false},
		{"made and found", &Conversation{StartArgs: []string{"--id={conversation_id}"}, Find: FindCodex}, false, true, false},
		{"unknown placeholder", &Conversation{ResumeArgs: []string{"--resume", "{conversation}"}}, false, false, true},
	} {
		p := base
		p.Conversation = tc.conv
		if err := p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate %v, want ok %v", tc.name, err, tc.ok)
		}
		if got := tc.conv.Makes(); got != tc.makes {
			t.Errorf("%s: Makes %v", tc.name, got)
		}
		if got := tc.conv.CanResume(); got != tc.can {
			t.Errorf("%s: CanResume %v", tc.name, got)
		}
	}
}

// isInvalid reports whether err is the profile's refusal of what it was given.
func isInvalid(err error) bool {
	var inv *InvalidError
	return errors.As(err, &inv)
}
