package gitcmd

import "strings"

// fixedEnv returns the variables set on every call, after whatever was
// inherited.
func fixedEnv() []string {
	return []string{
		// Never ask for a user name or password on a terminal nobody
		// watches.
		"GIT_TERMINAL_PROMPT=0",
		// Messages and porcelain in one language, so that output parses
		// the same on every machine.
		"LC_ALL=C",
		// Reads (status above all) would otherwise take index.lock to
		// refresh the index and collide with the person's own git in the
		// same repository. Commands that write take their locks
		// regardless, so setting it on every call is the same as setting
		// it on reads only, without a list of which commands read.
		"GIT_OPTIONAL_LOCKS=0",
		// Nothing pages, and nothing waits for an editor: a commit or a
		// merge that would open one takes the message it has.
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_EDITOR=true",
		"GIT_SEQUENCE_EDITOR=true",
		"GIT_MERGE_AUTOEDIT=no",
		// What we read and record is the objects themselves, not
		// replacements a person made for their own viewing.
		"GIT_NO_REPLACE_OBJECTS=1",
	}
}

// keepGitVar reports whether an inherited GIT_ variable reaches git: only
// those that say where a person's configuration lives and how they reach
// remotes. Any other (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_CONFIG_PARAMETERS, GIT_AUTHOR_DATE…), inherited when the tray was
// started from a hook or a prepared shell, would point git somewhere other
// than -C says or change what it writes.
func keepGitVar(name string) bool {
	switch name {
	case "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS":
		return true
	}
	return false
}

// environ returns the environment for git: parent without the GIT_
// variables keepGitVar drops and without those fixedEnv sets, then
// fixedEnv.
func environ(parent []string) []string {
	fixed := fixedEnv()
	set := make(map[string]bool, len(fixed))
	for _, kv := range fixed {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	env := make([]string, 0, len(parent)+len(fixed))
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if set[name] || strings.HasPrefix(name, "GIT_") && !keepGitVar(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, fixed...)
}
