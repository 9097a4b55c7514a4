package supervisor

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/store"
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
	case store.TrustClaude:
		return trustClaude(sv, dir)
	case store.TrustCodex:
		x.Args = append(x.Args, trustCodex(dir)...)
	case store.TrustGemini:
		x.Env = append(x.Env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	default:
		return fmt.Errorf("profile %s: unknown trust %q", spec.Profile.ID, spec.Profile.Trust)
	}
	return nil
}
