package store

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// bucketProfiles holds the agent profiles a person added or edited:
//
//	profiles/
//	  <profile id>       -> Profile JSON
//
// The built-in profiles live in the supervisor's code; a stored profile with
// a built-in's id overrides it, and deleting the override brings the
// built-in back.
var bucketProfiles = []byte("profiles")

// PromptDelivery is how an agent receives its bootstrap prompt.
type PromptDelivery string

const (
	// PromptArgument puts the prompt in the command line ({prompt}).
	PromptArgument PromptDelivery = "argument"
	// PromptTyped types the prompt into the terminal once the screen has
	// settled: a bracketed paste when the program asked for one, then Enter.
	PromptTyped PromptDelivery = "typed"
	// PromptNone sends no bootstrap prompt (a shell would run it as a
	// command); a prompt the person gives is still typed in.
	PromptNone PromptDelivery = "none"
)

// Profile says how to start one kind of agent CLI under the supervisor.
//
// Command and Args are templates: {endpoint}, {token_file}, {mcp_config},
// {session_id}, {repository_id}, {repository_path} and {prompt} are
// replaced per session, each placeholder standing for one whole argument
// or part of one (never split into several).
type Profile struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Env is added to the agent's environment (NAME=value templates).
	Env []string `json:"env,omitempty"`
	// Prompt is how the bootstrap prompt is delivered.
	Prompt PromptDelivery `json:"prompt"`
	// TokenEnv also puts the raw token in SWITCHBOARD_MCP_TOKEN, for agents
	// that read the bearer token from a variable (Codex, Gemini CLI). The
	// token file is always there.
	TokenEnv bool `json:"token_env,omitempty"`
	// MCPConfig writes a per-session MCP client config file in this format
	// ("claude": mcpServers JSON with the literal URL and header), named by
	// {mcp_config}; "" writes none.
	MCPConfig string `json:"mcp_config,omitempty"`
	// Trust names how the CLI is spared its folder-trust question in a
	// worktree Switchboard made for the session (never elsewhere): one of
	// the Trust* values, "" for nothing.
	Trust string `json:"trust,omitempty"`
	// Permissions are the argument templates added for each permission
	// mode (PermissionAsk, …) the profile offers. A mode it lacks is not
	// offered, except ask with no arguments when it has none at all: the
	// CLI then does what it does by default.
	Permissions map[Permission][]string `json:"permissions,omitempty"`
	// Notes tell a person what the profile needs (a login, a one-time
	// registration).
	Notes string `json:"notes,omitempty"`
}

// MCP config formats a profile may ask for.
const MCPConfigClaude = "claude"

// How a profile's CLI is told to trust a worktree Switchboard made.
const (
	// TrustClaude records the worktree's exact path as trusted in Claude
	// Code's own config (~/.claude.json).
	TrustClaude = "claude"
	// TrustCodex passes -c projects."<path>".trust_level="trusted".
	TrustCodex = "codex"
	// TrustGemini sets GEMINI_CLI_TRUST_WORKSPACE=true for the session.
	TrustGemini = "gemini"
)

var profileID = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`)

// Validate checks what can be checked without the machine: an id, a command,
// known delivery modes, placeholders that exist.
func (p *Profile) Validate() error {
	if !profileID.MatchString(p.ID) {
		return Deny(CodeInvalidArgument, "profile id must match %s", profileID)
	}
	if strings.TrimSpace(p.Name) == "" || len(p.Name) > 80 || !utf8.ValidString(p.Name) {
		return Deny(CodeInvalidArgument, "profile name must be 1 to 80 bytes of text")
	}
	if strings.TrimSpace(p.Command) == "" {
		return Deny(CodeInvalidArgument, "profile command is empty")
	}
	switch p.Prompt {
	case PromptArgument, PromptTyped, PromptNone:
	default:
		return Deny(CodeInvalidArgument, "profile prompt delivery must be %q, %q or %q, not %q", PromptArgument, PromptTyped, PromptNone, p.Prompt)
	}
	switch p.MCPConfig {
	case "", MCPConfigClaude:
	default:
		return Deny(CodeInvalidArgument, "profile mcp_config must be %q or empty, not %q", MCPConfigClaude, p.MCPConfig)
	}
	switch p.Trust {
	case "", TrustClaude, TrustCodex, TrustGemini:
	default:
		return Deny(CodeInvalidArgument, "profile trust must be %q, %q, %q or empty, not %q", TrustClaude, TrustCodex, TrustGemini, p.Trust)
	}
	size := len(p.Command) + len(p.Notes)
	for _, t := range slices.Concat([]string{p.Command}, p.Args, p.Env) {
		size += len(t)
		if err := checkTemplate(t); err != nil {
			return err
		}
	}
	for mode, args := range p.Permissions {
		if mode == "" || !mode.Valid() {
			return Deny(CodeInvalidArgument, "profile permissions: %q is not a mode (%q, %q or %q)", shortText(string(mode)), PermissionAsk, PermissionEdits, PermissionAuto)
		}
		for _, t := range args {
			size += len(t)
			if err := checkTemplate(t); err != nil {
				return err
			}
		}
	}
	for _, e := range p.Env {
		name, _, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			return Deny(CodeInvalidArgument, "profile env %q is not NAME=value", e)
		}
		if strings.HasPrefix(name, "SWITCHBOARD_") {
			return Deny(CodeInvalidArgument, "profile env may not set %s: the supervisor sets SWITCHBOARD_* itself", name)
		}
	}
	if size > 64<<10 {
		return Deny(CodeInvalidArgument, "profile is larger than 64 KiB")
	}
	return nil
}

// Offers reports whether the profile offers permission mode m: a mode it
// has arguments for, and ask (the CLI's default) for a profile with none.
func (p *Profile) Offers(m Permission) bool {
	m = m.Or()
	if len(p.Permissions) == 0 {
		return m == PermissionAsk
	}
	_, ok := p.Permissions[m]
	return ok
}

// Placeholders are the template names a profile may use.
var Placeholders = []string{"endpoint", "token_file", "mcp_config", "session_id", "repository_id", "repository_path", "prompt"}

func checkTemplate(t string) error {
	if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
		return Deny(CodeInvalidArgument, "profile template %q is not text", t)
	}
	// The same scan as the supervisor's expansion: every "{", wherever it
	// stands (inside a TOML value's own braces too), starts a placeholder
	// when a name of [a-z0-9_] and "}" follow; anything else is literal.
	for i := 0; i < len(t); i++ {
		if t[i] != '{' {
			continue
		}
		n := i + 1
		for n < len(t) && isPlaceholderByte(t[n]) {
			n++
		}
		if n > i+1 && n < len(t) && t[n] == '}' && !slices.Contains(Placeholders, t[i+1:n]) {
			return Deny(CodeInvalidArgument, "profile template %q names {%s}; known: %s", t, t[i+1:n], strings.Join(Placeholders, ", "))
		}
	}
	return nil
}

// isPlaceholderByte tells a placeholder's name, {like_this}, from braces
// that are part of an argument, like Codex's -c 'x={url="…"}'.
func isPlaceholderByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// Profiles returns the stored profiles, ordered by id.
func (tx *Tx) Profiles() ([]Profile, error) {
	var out []Profile
	err := tx.tx.Bucket(bucketProfiles).ForEach(func(k, v []byte) error {
		var p Profile
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("decode profile %s: %w", k, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Profile returns the stored profile id; ok is false when none is stored.
func (tx *Tx) Profile(id string) (p Profile, ok bool, err error) {
	v := tx.tx.Bucket(bucketProfiles).Get([]byte(id))
	if v == nil {
		return Profile{}, false, nil
	}
	if err := json.Unmarshal(v, &p); err != nil {
		return Profile{}, false, fmt.Errorf("decode profile %s: %w", id, err)
	}
	return p, true, nil
}

// PutProfile stores p, adding it or replacing the one with its id.
func (tx *Tx) PutProfile(p Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	v, err := json.Marshal(&p)
	if err != nil {
		return fmt.Errorf("encode profile %s: %w", p.ID, err)
	}
	if err := tx.tx.Bucket(bucketProfiles).Put([]byte(p.ID), v); err != nil {
		return fmt.Errorf("store profile %s: %w", p.ID, err)
	}
	return nil
}

// DeleteProfile removes the stored profile id; not_found when none is.
func (tx *Tx) DeleteProfile(id string) error {
	b := tx.tx.Bucket(bucketProfiles)
	if b.Get([]byte(id)) == nil {
		return Deny(CodeNotFound, "no stored profile %s", id)
	}
	if err := b.Delete([]byte(id)); err != nil {
		return fmt.Errorf("delete profile %s: %w", id, err)
	}
	return nil
}
