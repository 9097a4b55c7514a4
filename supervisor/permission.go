package supervisor

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// ErrAutoNeedsWorktree refuses full auto in a folder Switchboard did not
// make for the session: the CLI's bypass mode edits and runs commands with
// nobody asked, which only a throw-away worktree makes safe to allow.
var ErrAutoNeedsWorktree = errors.New("full auto runs only in a worktree of the session's own; this start has none (the repository's isolation is none, it is not a git repository, or the start asked for no worktree)")

// ErrBypassAsRoot says the CLI would refuse its bypass mode as root and
// stop at once, leaving a screen with one line on it.
var ErrBypassAsRoot = errors.New("Claude Code refuses its bypass mode (bypassPermissions) when run as root; run Switchboard as another user, or choose edits")

// addPermission adds the arguments the profile gives the session's mode.
func addPermission(_ *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error {
	if spec.Permission.Or() == profile.PermissionAuto && spec.Workspace == nil {
		return ErrAutoNeedsWorktree
	}
	args, err := PermissionArgs(spec.Profile, spec.Permission, os.Geteuid())
	if err != nil {
		return err
	}
	if confined, ok := spec.Profile.ConfinedPermissions[spec.Permission.Or()]; ok && spec.Policy != nil {
		args = confined
	}
	for _, a := range args {
		x.Args = append(x.Args, expand(a, vars))
	}
	return nil
}

// PermissionArgs returns the argument templates profile p adds for mode m
// (ask when empty) for a process of user euid, or why it cannot start in
// that mode: a mode the profile does not offer, or a bypass the CLI would
// refuse as root.
func PermissionArgs(p profile.Profile, m profile.Permission, euid int) ([]string, error) {
	if err := profile.CheckPermission(m); err != nil {
		return nil, store.Deny(store.CodeInvalidArgument, "%v", err)
	}
	m = m.Or()
	if !p.Offers(m) {
		var offered []string
		for _, o := range profile.Permissions() {
			if p.Offers(o) {
				offered = append(offered, string(o))
			}
		}
		return nil, store.Deny(store.CodeInvalidArgument, "profile %s has no %s mode (it offers %s)", p.ID, m, strings.Join(offered, ", "))
	}
	args := p.Permissions[m]
	if euid == 0 && refusedAsRoot(args) && !sandboxed(p.Env) {
		return nil, store.Deny(store.CodeInvalidArgument, "%s", ErrBypassAsRoot)
	}
	return args, nil
}

// refusedAsRoot reports whether args ask Claude Code for its bypass mode,
// which it refuses as root ("--dangerously-skip-permissions cannot be used
// with root/sudo privileges") and exits.
func refusedAsRoot(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--dangerously-skip-permissions", a == "--permission-mode=bypassPermissions":
			return true
		case a == "--permission-mode" && i+1 < len(args) && args[i+1] == "bypassPermissions":
			return true
		}
	}
	return false
}

// sandboxed reports whether the agent's environment (Switchboard's own,
// then the profile's) sets IS_SANDBOX=1, Claude Code's own way to say it
// runs as root in a sandbox and may bypass there.
func sandboxed(profileEnv []string) bool {
	env := slices.Concat(os.Environ(), profileEnv)
	v := ""
	for _, e := range env {
		if name, val, ok := strings.Cut(e, "="); ok && name == "IS_SANDBOX" {
			v = val
		}
	}
	return v == "1"
}
