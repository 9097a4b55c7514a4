package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/profile"
)

// Builtins are the profiles Switchboard ships, from what each CLI accepts
// (see AGENTS.md in the spec): how it takes an MCP server without touching
// the user's own config, how it takes a first prompt, and what it needs
// once by hand.
func Builtins() []profile.Profile {
	return []profile.Profile{
		{
			ID: "claude", Name: "Claude Code", Command: "claude",
			// --strict-mcp-config: only this session's server, none of the
			// user's. --allowedTools=mcp__switchboard lets the agent call
			// Switchboard's tools (and only those) without stopping to ask
			// a person, whatever permission mode Claude Code starts in; the
			// "=" keeps the flag, which takes several values, from taking
			// the prompt too. The prompt argument is submitted once the
			// folder trust dialog is passed.
			Args: []string{"--mcp-config", "{mcp_config}", "--strict-mcp-config",
				"--allowedTools=mcp__switchboard", "{prompt}"},
			Env:       []string{"ENABLE_TOOL_SEARCH=false"},
			Prompt:    profile.PromptArgument,
			MCPConfig: profile.MCPConfigClaude,
			Usage:     profile.UsageClaude,
			// A worktree Switchboard made is recorded as trusted in
			// Claude Code's own config (trust_claude.go), so the session
			// does not stop at the folder-trust question.
			Trust: profile.TrustClaude,
			Hooks: profile.HooksClaude,
			Notes: "Needs a Claude login (run claude once by hand, or set ANTHROPIC_API_KEY and approve it once). " +
				"For a session in its own worktree, Switchboard records that worktree's exact path as trusted in " +
				"~/.claude.json (projects[path].hasTrustDialogAccepted; $CLAUDE_CONFIG_DIR/.claude.json when set); " +
				"in the repository's own folder Claude Code asks once, as usual. " +
				"Full auto (bypassPermissions) is refused by Claude Code when it runs as root, unless IS_SANDBOX=1 says it runs in a sandbox.",
			// Switchboard names the conversation (a UUID, as --session-id
			// requires) and --resume continues it after the app restarts.
			Conversation: &profile.Conversation{
				StartArgs:  []string{"--session-id", "{conversation_id}"},
				ResumeArgs: []string{"--resume", "{conversation_id}"},
			},
			// manual is 2.1.332's name for the mode that asks before each
			// edit and command (its own default, "auto", lets a server-side
			// check decide instead). Full auto carries the person's consent,
			// given once for the repository in Switchboard, for this run
			// only (a --settings document, not their settings file): else
			// Claude Code stops at its bypass disclaimer.
			Permissions: map[profile.Permission][]string{
				profile.PermissionAsk:   {"--permission-mode", "manual"},
				profile.PermissionEdits: {"--permission-mode", "acceptEdits"},
				profile.PermissionAuto:  {"--permission-mode", "bypassPermissions", "--settings", `{"skipDangerousModePermissionPrompt":true}`},
			},
		},
		{
			ID: "codex", Name: "Codex", Command: "codex",
			// daemon_auto_start off: otherwise the TUI leaves an app-server
			// running in its own session, out of reach of a stop.
			// default_tools_approval_mode: Switchboard's tools run without
			// an approval prompt. Trust: a worktree Switchboard made is
			// trusted for this run by a -c override (trust_codex.go).
			Args: []string{"--disable", "daemon_auto_start", "-c",
				`mcp_servers.switchboard={url="{endpoint}",bearer_token_env_var="SWITCHBOARD_MCP_TOKEN",default_tools_approval_mode="approve"}`,
				"{prompt}"},
			Prompt:   profile.PromptArgument,
			TokenEnv: true,
			Usage:    profile.UsageCodex,
			Trust:    profile.TrustCodex,
			Notes: "Needs a Codex sign-in (run codex once by hand). A worktree Switchboard made is trusted for that run only, " +
				`with -c projects={"<worktree>"={trust_level="trusted"}}; nothing is written to ~/.codex/config.toml. ` +
				"Started in your own folder, Codex asks to trust it.",
			// Codex picks its conversation's id itself and writes it in
			// its rollout file; "codex resume ID" is a subcommand taking
			// the same options and prompt.
			Conversation: &profile.Conversation{
				ResumePrefix: []string{"resume", "{conversation_id}"},
				Find:         profile.FindCodex,
			},
			// Ask: a read-only sandbox, so every edit and command outside
			// it asks; edits: writes in the worktree allowed, the rest asks.
			// (A worktree's commits write to the repository's own .git,
			// outside the sandbox, so a commit asks in edits mode.)
			Permissions: map[profile.Permission][]string{
				profile.PermissionAsk:   {"--sandbox", "read-only", "--ask-for-approval", "on-request"},
				profile.PermissionEdits: {"--sandbox", "workspace-write", "--ask-for-approval", "on-request"},
				profile.PermissionAuto:  {"--dangerously-bypass-approvals-and-sandbox"},
			},
			// Confined, Codex's own sandbox cannot start: it is bubblewrap,
			// which needs a user namespace inside Switchboard's, and
			// Codex 0.171 refuses its old Landlock path for a restricted
			// mode ("requires bubblewrap"). In edits it is turned off and
			// Switchboard's sandbox holds the same boundary (writes in the
			// worktree only), so commands run without a question, as
			// edits means. Ask keeps its read-only sandbox: a command
			// that cannot start in it asks to run outside it, which is
			// still inside Switchboard's. ("untrusted" approvals were
			// tried for ask: they ask before every script Codex runs to
			// call Switchboard's tools, so no packet gets done.)
			ConfinedPermissions: map[profile.Permission][]string{
				profile.PermissionEdits: {"--sandbox", "danger-full-access", "--ask-for-approval", "on-request"},
			},
		},
		{
			ID: "gemini", Name: "Gemini CLI", Command: "gemini",
			// --allowed-mcp-server-names: of the person's MCP servers only
			// Switchboard's loads, and its tools (mcp_switchboard_*) run
			// without asking, as with the settings' mcp.allowed list; the
			// CLI's own tools still ask. The folder trust comes from
			// Trust, only for a worktree Switchboard made:
			// GEMINI_CLI_TRUST_WORKSPACE=true (in an untrusted folder
			// Gemini CLI asks first and loads no MCP server at all).
			Args:     []string{"--allowed-mcp-server-names", "switchboard", "-i", "{prompt}"},
			Env:      []string{"COLORTERM=truecolor"},
			Prompt:   profile.PromptArgument,
			TokenEnv: true,
			Usage:    profile.UsageGemini,
			Trust:    profile.TrustGemini,
			Notes: "Needs a Gemini sign-in or API key (run gemini once by hand). Gemini CLI has no per-session MCP config: register Switchboard once with " +
				`gemini mcp add -t http switchboard '${SWITCHBOARD_MCP_URL}' -H 'Authorization: Bearer ${SWITCHBOARD_MCP_TOKEN}' -s user` +
				" (single quotes: the placeholders are written as they are into ~/.gemini/settings.json and filled from the variables every session Switchboard starts has)." +
				" In a worktree Switchboard made, the folder is trusted for that run (GEMINI_CLI_TRUST_WORKSPACE=true in its environment, nothing written); elsewhere it asks on first start.",
			// --session-id starts a conversation of Switchboard's UUID;
			// --resume takes "latest", an index or that UUID, looked up
			// among the sessions of the folder (the session's worktree).
			Conversation: &profile.Conversation{
				StartArgs:  []string{"--session-id", "{conversation_id}"},
				ResumeArgs: []string{"--resume", "{conversation_id}"},
			},
			Permissions: map[profile.Permission][]string{
				profile.PermissionAsk:   {"--approval-mode", "default"},
				profile.PermissionEdits: {"--approval-mode", "auto_edit"},
				profile.PermissionAuto:  {"--approval-mode", "yolo"},
			},
		},
		{
			ID: "aider", Name: "aider", Command: "aider",
			Prompt: profile.PromptTyped,
			Notes:  "aider has no MCP client: it gets the prompt typed in, and the endpoint and token in its environment.",
		},
		{
			ID: ShellProfile, Name: "Shell", Command: "{shell}",
			Prompt: profile.PromptNone,
			Notes:  "Your login shell, with SWITCHBOARD_MCP_URL and SWITCHBOARD_MCP_TOKEN_FILE set.",
		},
	}
}

// ShellProfile is the built-in shell's id: its status comes from whether
// a command holds its terminal (Session.Status).
const ShellProfile = "shell"

// ProfileInfo is a profile as the GUI and the CLI list it.
type ProfileInfo struct {
	profile.Profile
	Builtin bool `json:"builtin"`
	// Edited is set on a built-in the person has overridden.
	Edited bool `json:"edited,omitempty"`
	// Available reports whether the command is found on PATH; Path is
	// where. An unavailable profile is listed, not hidden, so a person
	// sees what to install.
	Available bool   `json:"available"`
	Path      string `json:"path,omitempty"`
}

// MergeProfiles lays the stored profiles over the built-ins: a stored
// profile with a built-in's id replaces it. Built-ins come first, in their
// order, then the person's own by id.
func MergeProfiles(stored []profile.Profile) []ProfileInfo {
	var out []ProfileInfo
	byID := map[string]profile.Profile{}
	for _, p := range stored {
		byID[p.ID] = p
	}
	for _, b := range Builtins() {
		info := ProfileInfo{Profile: b, Builtin: true}
		if p, ok := byID[b.ID]; ok {
			info.Profile, info.Edited = p, true
			delete(byID, b.ID)
		}
		out = append(out, info)
	}
	var own []string
	for id := range byID {
		own = append(own, id)
	}
	slices.Sort(own)
	for _, id := range own {
		out = append(out, ProfileInfo{Profile: byID[id]})
	}
	for i := range out {
		out[i].Path, out[i].Available = lookCommand(out[i].Command)
	}
	return out
}

// FindProfile returns the profile id after merging, or false.
func FindProfile(stored []profile.Profile, id string) (ProfileInfo, bool) {
	for _, p := range MergeProfiles(stored) {
		if p.ID == id {
			return p, true
		}
	}
	return ProfileInfo{}, false
}

// lookCommand finds a profile's command on PATH. {shell} is the user's
// login shell.
func lookCommand(command string) (string, bool) {
	path, err := exec.LookPath(shellCommand(command))
	if err != nil {
		return "", false
	}
	return path, true
}

func shellCommand(command string) string {
	if command != "{shell}" {
		return command
	}
	if runtime.GOOS == "windows" {
		// Windows names the user's command interpreter in ComSpec; SHELL
		// there is only what a Unix-like layer (MSYS, Cygwin) set.
		if sh := os.Getenv("ComSpec"); sh != "" {
			return sh
		}
		return "cmd.exe"
	}
	if sh := os.Getenv("SHELL"); sh != "" {
		return sh
	}
	return "/bin/sh"
}

// expand replaces the placeholders of one template: {name}, name made of
// lowercase letters, digits and underscores, wherever it stands, inside
// other braces too (Codex's -c value is TOML: {url="{endpoint}",...}).
// Any other brace, and {name} with a name vars lacks, is copied as it is.
// Values are inserted as they are, never expanded again, and each template
// is one argv element, never re-split, so a prompt with spaces, quotes or
// braces stays one argument.
func expand(t string, vars map[string]string) string {
	if !strings.Contains(t, "{") {
		return t
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		t = t[i:]
		n := 1
		for n < len(t) && isNameByte(t[n]) {
			n++
		}
		if n > 1 && n < len(t) && t[n] == '}' {
			if v, ok := vars[t[1:n]]; ok {
				b.WriteString(v)
				t = t[n+1:]
				continue
			}
		}
		// Not a placeholder of ours: copy this brace alone, so one that
		// starts inside it (the text after it) is still found.
		b.WriteByte('{')
		t = t[1:]
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// takesPromptArgument reports whether p passes the prompt on its command
// line: delivery "argument" and a {prompt} in its arguments. A profile
// that says "argument" but has nowhere to put it would drop the prompt.
func takesPromptArgument(p profile.Profile) bool {
	return p.Prompt == profile.PromptArgument &&
		slices.ContainsFunc(p.Args, func(a string) bool { return strings.Contains(a, "{prompt}") })
}

// firstPrompt is a session's first prompt and how it reaches the agent. A
// prompt the person gave (spec.Prompt) is always delivered: on the command
// line when the profile takes it there, else typed in, even into a shell,
// which then runs it, as asked. When they gave none, Switchboard's
// bootstrap prompt follows the profile, and a "none" profile (a shell)
// gets nothing: a shell would run the instructions as a command.
func firstPrompt(spec LaunchSpec) (string, profile.PromptDelivery) {
	prompt, explicit := spec.Prompt, spec.Prompt != ""
	if !explicit {
		prompt = BootstrapPrompt(spec.SessionID, spec.RepositoryID)
		if spec.PacketNote != "" {
			prompt += " " + spec.PacketNote
		}
		if spec.Policy != nil {
			prompt += " " + confinedNote
		}
	}
	switch {
	case takesPromptArgument(spec.Profile):
		return prompt, profile.PromptArgument
	case spec.Profile.Prompt == profile.PromptTyped, explicit:
		return prompt, profile.PromptTyped
	default:
		return prompt, profile.PromptNone
	}
}

// commandLine expands p for one session: the command found on PATH and
// the arguments, x's prefix first, then p's expanded arguments with x's
// own before the prompt (see extrasAt).
func commandLine(p profile.Profile, vars map[string]string, x launchExtras) (path string, args []string, err error) {
	path, ok := lookCommand(p.Command)
	if !ok {
		return "", nil, fmt.Errorf("%s: %q is not on PATH", p.ID, shellCommand(p.Command))
	}
	expanded := expandArgs(p, vars)
	at := extrasAt(p.Args, len(expanded), vars["prompt"] != "")
	args = slices.Concat(x.Prefix, expanded[:at], x.Args, expanded[at:])
	return path, args, nil
}

// extrasAt is where a session's own arguments go among the n expanded
// templates: before an argument that is exactly {prompt}, and before the
// flag that takes it ("-i", "{prompt}") when one stands just in front;
// after everything when the prompt is not an argument of its own. A
// dropped (empty) {prompt} is last, so the end is right then too.
func extrasAt(templates []string, n int, hasPrompt bool) int {
	i := slices.Index(templates, "{prompt}")
	if i < 0 || !hasPrompt {
		return n
	}
	if i > 0 && strings.HasPrefix(templates[i-1], "-") && !strings.Contains(templates[i-1], "=") && !strings.Contains(templates[i-1], "{") {
		i--
	}
	return i
}

// expandArgs expands p's argument templates. An argument that is exactly
// "{prompt}" is dropped when there is no prompt to pass, rather than
// passing an empty one.
func expandArgs(p profile.Profile, vars map[string]string) []string {
	var args []string
	for _, a := range p.Args {
		if a == "{prompt}" && vars["prompt"] == "" {
			continue
		}
		args = append(args, expand(a, vars))
	}
	return args
}
