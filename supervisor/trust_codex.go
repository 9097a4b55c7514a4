package supervisor

// trustCodex is the -c override that trusts dir for this run of Codex.
// TODO(h-codex).
func trustCodex(dir string) []string { return nil }
