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

// keepVar reports whether an inherited variable other than GIT_ ones
// reaches git. The list is short on purpose: the app's environment holds
// what git has no use for and must not hand on to the programs it starts
// (a filter, a credential helper, ssh): the client token, the team
// database's PG* and DATABASE_URL, every SWITCHBOARD_* variable. Names
// are compared in upper case, as Windows does; on Unix that only lets
// through the lower-case proxy variables curl reads.
func keepVar(name string) bool {
	switch strings.ToUpper(name) {
	case
		// Where git finds its helpers, ssh and a credential helper.
		"PATH",
		// Where the person's own configuration is: ~/.gitconfig and
		// $XDG_CONFIG_HOME/git/config, ~/.ssh; who they are when
		// user.name is unset (git falls back to the login name).
		"HOME", "XDG_CONFIG_HOME", "USER", "LOGNAME",
		// git's temporary files.
		"TMPDIR",
		// A push (a pull request) over ssh with the person's agent, over
		// https through their proxy and certificates, with their
		// credential helper: git-credential-cache's socket is under
		// $XDG_CACHE_HOME, libsecret's keyring on the session bus, and
		// ssh or the helper asks for a passphrase through SSH_ASKPASS on
		// the person's display when nothing else has it. gh is not run
		// through here and its tokens (GH_TOKEN, GITHUB_TOKEN) are not
		// git's.
		"SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "DISPLAY", "WAYLAND_DISPLAY",
		"XDG_CACHE_HOME", "DBUS_SESSION_BUS_ADDRESS",
		"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
		"SSL_CERT_FILE", "SSL_CERT_DIR",
		// The person's keys, for a repository that signs commits
		// (commit.gpgSign also signs the landing's commit-tree).
		"GNUPGHOME",
		// What git for Windows needs to start at all and to find HOME.
		"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP",
		"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA":
		return true
	}
	return false
}

// environ returns the environment for git: the variables of parent that
// keepVar or keepGitVar let through, then fixedEnv. Locale variables (LANG,
// LC_*) are not among them: fixedEnv's LC_ALL decides.
func environ(parent []string) []string {
	fixed := fixedEnv()
	set := make(map[string]bool, len(fixed))
	for _, kv := range fixed {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	env := make([]string, 0, len(fixed)+16)
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if set[name] {
			continue
		}
		if strings.HasPrefix(name, "GIT_") && keepGitVar(name) || keepVar(name) {
			env = append(env, kv)
		}
	}
	return append(env, fixed...)
}
