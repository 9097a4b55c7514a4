package supervisor

// addHooks adds the CLI's own state signals (Claude Code hooks).
func addHooks(sv *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error {
	return nil
}
