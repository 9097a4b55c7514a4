package supervisor

// addConversation adds the CLI's conversation id, to start or resume.
func addConversation(sv *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error {
	return nil
}
