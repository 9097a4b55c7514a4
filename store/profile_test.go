package store

import (
	"context"
	"strings"
	"testing"
)

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
			case tt.want != "" && CodeOf(err) != CodeInvalidArgument:
				t.Fatalf("code %s, want invalid_argument", CodeOf(err))
			}
		})
	}
}

func TestProfileStore(t *testing.T) {
	db := openTestDB(t, Options{})
	a := Profile{ID: "aider", Name: "aider", Command: "aider", Prompt: PromptTyped}
	b := Profile{ID: "zsh", Name: "zsh", Command: "zsh", Prompt: PromptNone}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.PutProfile(b); err != nil {
			return err
		}
		return tx.PutProfile(a)
	})
	mustView(t, db, func(tx *Tx) error {
		ps, err := tx.Profiles()
		if err != nil {
			return err
		}
		if len(ps) != 2 || ps[0].ID != "aider" || ps[1].ID != "zsh" {
			t.Errorf("Profiles = %+v, want aider then zsh", ps)
		}
		if p, ok, err := tx.Profile("zsh"); err != nil || !ok || p.Command != "zsh" {
			t.Errorf("Profile(zsh) = %+v, %v, %v", p, ok, err)
		}
		if _, ok, err := tx.Profile("fish"); err != nil || ok {
			t.Errorf("Profile(fish) = %v, %v, want not stored", ok, err)
		}
		return nil
	})
	a.Command = "aider2"
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutProfile(a) })
	mustUpdate(t, db, func(tx *Tx) error { return tx.DeleteProfile("zsh") })
	if err := db.Update(context.Background(), func(tx *Tx) error { return tx.DeleteProfile("zsh") }); CodeOf(err) != CodeNotFound {
		t.Errorf("second delete: %v, want not_found", err)
	}
	if err := db.Update(context.Background(), func(tx *Tx) error { return tx.PutProfile(Profile{ID: "x"}) }); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("invalid profile stored: %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		ps, _ := tx.Profiles()
		if len(ps) != 1 || ps[0].Command != "aider2" {
			t.Errorf("after edit and delete: %+v", ps)
		}
		return nil
	})
}
