// Package profile says what an agent CLI is to Switchboard: the command
// that starts it, how it takes its first prompt, its MCP configuration,
// how it is spared its folder-trust question, where it records its token
// usage, how it reports its state, how it resumes a conversation, and the
// permission modes it offers. The store keeps profiles; the supervisor
// starts agents from them. It imports nothing of Switchboard's.
package profile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

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
	// Usage names where the CLI records its token counts, read by the
	// usage package: one of usageSources() ("claude", "codex", "gemini"),
	// "" for a CLI that records none (its sessions say so).
	Usage string `json:"usage,omitempty"`
	// Hooks names how the CLI reports its own state to Switchboard (one of
	// the Hooks* values, "" for nothing): HooksClaude gives Claude Code a
	// per-session --settings file whose hooks call back with the session's
	// token.
	Hooks string `json:"hooks,omitempty"`
	// Conversation says how the CLI starts and resumes a conversation of
	// its own id; nil when it cannot, and its sessions are not resumable.
	Conversation *Conversation `json:"conversation,omitempty"`
	// Permissions are the argument templates added for each permission
	// mode (PermissionAsk, …) the profile offers. A mode it lacks is not
	// offered, except ask with no arguments when it has none at all: the
	// CLI then does what it does by default.
	Permissions map[Permission][]string `json:"permissions,omitempty"`
	// ConfinedPermissions replace Permissions' arguments for a mode while
	// Switchboard's own sandbox confines the CLI: for a CLI whose own
	// sandbox cannot run inside it (Codex's needs a user namespace that
	// the sandbox does not give), and which must then leave the
	// confinement to Switchboard's. A mode not here keeps its arguments.
	ConfinedPermissions map[Permission][]string `json:"confined_permissions,omitempty"`
	// Notes tell a person what the profile needs (a login, a one-time
	// registration).
	Notes string `json:"notes,omitempty"`
}

// Conversation is how a CLI names its conversation, so that a session that
// ended with the app can be resumed with it. Its templates may use
// {conversation_id} (the session's recorded id) besides the profile's
// placeholders.
type Conversation struct {
	// StartArgs go before the prompt at a new session's start. When they
	// name {conversation_id}, Switchboard makes the id (a random UUID) and
	// tells the CLI; when they do not, the CLI picks its own and Find says
	// where Switchboard reads it.
	StartArgs []string `json:"start_args,omitempty"`
	// ResumePrefix goes before all the profile's arguments on a resume (a
	// subcommand, such as Codex's "resume", "{conversation_id}").
	ResumePrefix []string `json:"resume_prefix,omitempty"`
	// ResumeArgs go before the prompt on a resume.
	ResumeArgs []string `json:"resume_args,omitempty"`
	// Find names how the id of a CLI that picks its own is learned after
	// the start: one of the Find* values, "" when StartArgs give it.
	Find string `json:"find,omitempty"`
}

// How the conversation id of a CLI that picks its own is found.
const (
	// FindCodex reads the session_meta line of Codex's rollout files
	// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) for the one whose
	// cwd is the session's folder.
	FindCodex = "codex"
)

// Makes reports whether the conversation's id is Switchboard's to make
// (its StartArgs name it) rather than found after the start.
func (c *Conversation) Makes() bool {
	return c != nil && slices.ContainsFunc(c.StartArgs, func(a string) bool { return strings.Contains(a, "{conversation_id}") })
}

// CanResume reports whether a session with a recorded id can be resumed.
func (c *Conversation) CanResume() bool {
	return c != nil && (len(c.ResumePrefix) > 0 || len(c.ResumeArgs) > 0)
}

// validate checks the conversation's templates and that its id has a
// source.
func (c *Conversation) validate() (size int, err error) {
	if c == nil {
		return 0, nil
	}
	switch c.Find {
	case "", FindCodex:
	default:
		return 0, invalid("profile conversation find must be %q or empty, not %q", FindCodex, c.Find)
	}
	if c.Find != "" && c.Makes() {
		return 0, invalid("profile conversation either names {conversation_id} in its start arguments or finds it, not both")
	}
	for _, t := range slices.Concat(c.StartArgs, c.ResumePrefix, c.ResumeArgs) {
		size += len(t)
		if err := checkTemplate(t); err != nil {
			return 0, err
		}
	}
	return size, nil
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

// How a profile's CLI reports its own state (working, waiting, idle).
const (
	// HooksClaude: Claude Code's HTTP hooks (Notification, Stop,
	// UserPromptSubmit, PostToolUse), given per session with --settings.
	HooksClaude = "claude"
)

var profileID = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`)

// Validate checks what can be checked without the machine: an id, a command,
// known delivery modes, placeholders that exist.
func (p *Profile) Validate() error {
	if !profileID.MatchString(p.ID) {
		return invalid("profile id must match %s", profileID)
	}
	if strings.TrimSpace(p.Name) == "" || len(p.Name) > 80 || !utf8.ValidString(p.Name) {
		return invalid("profile name must be 1 to 80 bytes of text")
	}
	if strings.TrimSpace(p.Command) == "" {
		return invalid("profile command is empty")
	}
	switch p.Prompt {
	case PromptArgument, PromptTyped, PromptNone:
	default:
		return invalid("profile prompt delivery must be %q, %q or %q, not %q", PromptArgument, PromptTyped, PromptNone, p.Prompt)
	}
	switch p.MCPConfig {
	case "", MCPConfigClaude:
	default:
		return invalid("profile mcp_config must be %q or empty, not %q", MCPConfigClaude, p.MCPConfig)
	}
	switch p.Trust {
	case "", TrustClaude, TrustCodex, TrustGemini:
	default:
		return invalid("profile trust must be %q, %q, %q or empty, not %q", TrustClaude, TrustCodex, TrustGemini, p.Trust)
	}
	if p.Usage != "" && !slices.Contains(usageSources(), p.Usage) {
		return invalid("profile usage must be one of %s or empty, not %q", strings.Join(usageSources(), ", "), p.Usage)
	}
	switch p.Hooks {
	case "", HooksClaude:
	default:
		return invalid("profile hooks must be %q or empty, not %q", HooksClaude, p.Hooks)
	}
	size, err := p.Conversation.validate()
	if err != nil {
		return err
	}
	size += len(p.Command) + len(p.Notes)
	for _, t := range slices.Concat([]string{p.Command}, p.Args, p.Env) {
		size += len(t)
		if err := checkTemplate(t); err != nil {
			return err
		}
	}
	for mode, args := range p.ConfinedPermissions {
		if _, ok := p.Permissions[mode]; !ok {
			return invalid("profile confined permissions: %q is not one of its modes", shortText(string(mode)))
		}
		for _, t := range args {
			size += len(t)
			if err := checkTemplate(t); err != nil {
				return err
			}
		}
	}
	for mode, args := range p.Permissions {
		if mode == "" || !mode.Valid() {
			return invalid("profile permissions: %q is not a mode (%q, %q or %q)", shortText(string(mode)), PermissionAsk, PermissionEdits, PermissionAuto)
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
			return invalid("profile env %q is not NAME=value", e)
		}
		if strings.HasPrefix(name, "SWITCHBOARD_") {
			return invalid("profile env may not set %s: the supervisor sets SWITCHBOARD_* itself", name)
		}
	}
	if size > 64<<10 {
		return invalid("profile is larger than 64 KiB")
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

// placeholders are the template names a profile may use.
// {conversation_id} is the session's conversation id, given only to a
// profile's Conversation templates (empty elsewhere).
var placeholders = []string{"endpoint", "token_file", "mcp_config", "session_id", "repository_id", "repository_path", "prompt", "conversation_id"}

func checkTemplate(t string) error {
	if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
		return invalid("profile template %q is not text", t)
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
		if n > i+1 && n < len(t) && t[n] == '}' && !slices.Contains(placeholders, t[i+1:n]) {
			return invalid("profile template %q names {%s}; known: %s", t, t[i+1:n], strings.Join(placeholders, ", "))
		}
	}
	return nil
}

// isPlaceholderByte tells a placeholder's name, {like_this}, from braces
// that are part of an argument, like Codex's -c 'x={url="…"}'.
func isPlaceholderByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// InvalidError is a profile or a permission mode that cannot be used; its
// text says why, for the person who wrote it. The store refuses it as
// invalid_argument.
type InvalidError struct{ msg string }

func (e *InvalidError) Error() string { return e.msg }

func invalid(format string, args ...any) error {
	return &InvalidError{msg: fmt.Sprintf(format, args...)}
}
