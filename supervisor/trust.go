package supervisor

import (
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/profile"
)

// addTrust spares the CLI its folder-trust question, the way it supports,
// but only for a worktree Switchboard made for this session
// (spec.Workspace): a person's own folder is never trusted on their
// behalf.
func addTrust(sv *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error {
	if spec.Workspace == nil || spec.Profile.Trust == "" {
		return nil
	}
	dir := spec.Workspace.Path
	switch spec.Profile.Trust {
	case profile.TrustClaude:
		// The config Claude Code will read: the profile's own variables
		// (a CLAUDE_CONFIG_DIR) count, as they do for the agent.
		env := slices.Clone(sv.cfg.Env)
		for _, e := range spec.Profile.Env {
			env = append(env, expand(e, vars))
		}
		return trustClaude(sv, env, dir)
	case profile.TrustCodex:
		x.Args = append(x.Args, trustCodex(dir)...)
	case profile.TrustGemini:
		x.Env = append(x.Env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	default:
		return fmt.Errorf("profile %s: unknown trust %q", spec.Profile.ID, spec.Profile.Trust)
	}
	return nil
}
