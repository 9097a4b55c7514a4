package supervisor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// Each built-in profile's arguments for each mode, where they go on the
// command line (after its options, before the prompt), and the modes it
// does not offer.
func TestPermissionBuiltins(t *testing.T) {
	ws := &store.Workspace{Path: "/wt/ses_t", Branch: "switchboard/ses_t", BaseBranch: "main", BaseCommit: "abc"}
	tests := []struct {
		id       string
		mode     profile.Permission
		confined bool     // Switchboard's sandbox holds the CLI
		want     []string // the arguments before the prompt, after the profile's own
		err      string   // a piece of the error, "" for none
	}{
		{"claude", "", false, []string{"--permission-mode", "manual"}, ""},
		{"claude", profile.PermissionAsk, false, []string{"--permission-mode", "manual"}, ""},
		{"claude", profile.PermissionEdits, false, []string{"--permission-mode", "acceptEdits"}, ""},
		{"codex", profile.PermissionAsk, false, []string{"--sandbox", "read-only", "--ask-for-approval", "on-request"}, ""},
		{"codex", profile.PermissionEdits, false, []string{"--sandbox", "workspace-write", "--ask-for-approval", "on-request"}, ""},
		{"codex", profile.PermissionAuto, false, []string{"--dangerously-bypass-approvals-and-sandbox"}, ""},
		// Confined, Codex's own sandbox cannot start inside Switchboard's:
		// edits turns it off, the others keep their arguments.
		{"codex", profile.PermissionAsk, true, []string{"--sandbox", "read-only", "--ask-for-approval", "on-request"}, ""},
		{"codex", profile.PermissionEdits, true, []string{"--sandbox", "danger-full-access", "--ask-for-approval", "on-request"}, ""},
		{"claude", profile.PermissionEdits, true, []string{"--permission-mode", "acceptEdits"}, ""},
		{"gemini", profile.PermissionAsk, false, []string{"--approval-mode", "default"}, ""},
		{"gemini", profile.PermissionEdits, false, []string{"--approval-mode", "auto_edit"}, ""},
		{"gemini", profile.PermissionAuto, false, []string{"--approval-mode", "yolo"}, ""},
		{"aider", profile.PermissionAsk, false, nil, ""},
		{"aider", profile.PermissionEdits, false, nil, "has no edits mode (it offers ask)"},
		{"shell", "", false, nil, ""},
		{"shell", profile.PermissionAuto, false, nil, "has no auto mode"},
		{"gemini", "yolo", false, nil, `permission must be "ask", "edits" or "auto"`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/confined=%v", tt.id, tt.mode, tt.confined), func(t *testing.T) {
			p := builtin(t, tt.id)
			spec := LaunchSpec{SessionID: "ses_t", RepositoryID: "repo_t", Dir: ws.Path, Workspace: ws, Profile: p, Permission: tt.mode, Prompt: "go"}
			if tt.confined {
				spec.Policy = &confine.Policy{Dir: ws.Path, Writable: []string{ws.Path}}
			}
			vars := sessionVars(spec, profile.PromptArgument, "/run/t.token", "/run/t.json")
			var x launchExtras
			err := addPermission(nil, spec, vars, &x)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("addPermission = %v, want an error with %q", err, tt.err)
				}
				if store.CodeOf(err) != store.CodeInvalidArgument {
					t.Errorf("code %s, want invalid_argument", store.CodeOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(x.Args, tt.want) {
				t.Fatalf("args %q, want %q", x.Args, tt.want)
			}
			// Where they land: just before the prompt (and its -i).
			expanded := expandArgs(p, vars)
			at := extrasAt(p.Args, len(expanded), true)
			line := slices.Concat(expanded[:at], x.Args, expanded[at:])
			if tt.want != nil && (slices.Index(line, tt.want[0]) != at || !slices.Contains(line, "go")) {
				t.Errorf("command line %q: the mode's arguments are not just before the prompt", line)
			}
		})
	}
	// Every built-in with modes offers all three, so the tray's choice
	// means the same for each.
	for _, p := range Builtins() {
		if len(p.Permissions) > 0 && len(p.Permissions) != len(profile.Permissions()) {
			t.Errorf("%s offers %d modes", p.ID, len(p.Permissions))
		}
		for _, args := range p.Permissions {
			q := profile.Profile{ID: p.ID, Name: p.Name, Command: "x", Prompt: profile.PromptNone, Permissions: map[profile.Permission][]string{profile.PermissionAsk: args}}
			if err := q.Validate(); err != nil {
				t.Errorf("%s: %v", p.ID, err)
			}
		}
	}
}

// Full auto needs the session's own worktree, whatever the profile.
func TestPermissionAutoNeedsWorktree(t *testing.T) {
	for _, id := range []string{"claude", "codex", "gemini"} {
		spec := LaunchSpec{SessionID: "ses_t", Dir: "/src/repo", Profile: builtin(t, id), Permission: profile.PermissionAuto}
		var x launchExtras
		err := addPermission(nil, spec, map[string]string{}, &x)
		if !errors.Is(err, ErrAutoNeedsWorktree) || len(x.Args) != 0 {
			t.Errorf("%s auto in the repository's folder: %v, args %q", id, err, x.Args)
		}
	}
}

// Claude Code's bypass as root is refused before anything starts, unless
// the profile's environment says it is a sandbox.
func TestPermissionBypassAsRoot(t *testing.T) {
	t.Setenv("IS_SANDBOX", "")
	claude := builtin(t, "claude")
	sandboxed := claude
	sandboxed.Env = append(slices.Clone(claude.Env), "IS_SANDBOX=1")
	skip := profile.Profile{ID: "c2", Permissions: map[profile.Permission][]string{profile.PermissionAuto: {"--dangerously-skip-permissions"}}}
	eq := profile.Profile{ID: "c3", Permissions: map[profile.Permission][]string{profile.PermissionAuto: {"--permission-mode=bypassPermissions"}}}
	tests := []struct {
		p      profile.Profile
		mode   profile.Permission
		euid   int
		refuse bool
	}{
		{claude, profile.PermissionAuto, 0, true},
		{claude, profile.PermissionAuto, 1000, false},
		{claude, profile.PermissionEdits, 0, false},
		{sandboxed, profile.PermissionAuto, 0, false},
		{skip, profile.PermissionAuto, 0, true},
		{eq, profile.PermissionAuto, 0, true},
		{builtin(t, "codex"), profile.PermissionAuto, 0, false},
		{builtin(t, "gemini"), profile.PermissionAuto, 0, false},
	}
	for _, tt := range tests {
		_, err := PermissionArgs(tt.p, tt.mode, tt.euid)
		if refused := err != nil && strings.Contains(err.Error(), "root"); refused != tt.refuse || (err != nil && !refused) {
			t.Errorf("%s %s as %d: %v, want refused %v", tt.p.ID, tt.mode, tt.euid, err, tt.refuse)
		}
	}
}
