package supervisor

import "os"

// launchExtras are what a session adds to its profile's command line and
// environment beyond the templates: what only this start needs (the
// permission mode chosen, trust for a worktree Switchboard made, the
// per-session hook settings, the conversation to start or resume).
type launchExtras struct {
	// Prefix goes before the profile's arguments (a subcommand, such as
	// Codex's "resume ID").
	Prefix []string
	// Args go after the profile's options and before its prompt argument.
	Args []string
	// Env is added to the agent's environment after the profile's own.
	Env []string
	// Files were written for the session and are removed when it ends.
	Files []string
}

// extender adds one concern's part of a session's launch to x.
type extender func(sv *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error

// extenders are applied in this order; each lives in its own file.
// joinSettings comes last: it makes the --settings the others added one.
var extenders = []extender{addTrust, addPermission, addHooks, addConversation, joinSettings}

// extras builds a session's launchExtras. On an error the files already
// written are removed.
func (sv *Supervisor) extras(spec LaunchSpec, vars map[string]string) (launchExtras, error) {
	var x launchExtras
	for _, add := range extenders {
		if err := add(sv, spec, vars, &x); err != nil {
			for _, f := range x.Files {
				os.Remove(f)
			}
			return launchExtras{}, err
		}
	}
	return x, nil
}
