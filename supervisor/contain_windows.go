package supervisor

// reapable is false: a Job Object holds a Windows agent's tree, not a
// subreaper.
func reapable() bool { return false }
