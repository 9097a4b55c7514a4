package gitcmd

import (
	"strconv"
	"strings"
)

// safeConfig is the configuration every git call Switchboard makes runs
// with, given on git's command line. Command-line configuration is read
// after every file (system, global, the repository's config and
// config.worktree) and the last value of a key wins, so nothing written
// into a repository's .git/config can turn these back on. git also hands
// them on to the gits it starts itself (a submodule's status, worktree
// remove's check of the tree) through GIT_CONFIG_PARAMETERS.
//
// The keys are those that make an ordinary call run a program named in
// configuration. An agent runs as the person: it can write its worktree,
// may have written the repository's shared .git (config, hooks) when it ran
// unconfined, and a program git starts from there would run inside the app,
// as the person, outside any permission mode the agent was given.
//
// Left as the person configured them, on purpose:
//   - core.sshCommand, credential.helper, core.askPass: read only by a push
//     (a pull request), which runs in the person's checkout and needs their
//     way of reaching the remote.
//   - diff.external and diff.<driver>.command or textconv: every diff whose
//     text the app shows passes --no-ext-diff --no-textconv; plumbing and
//     --name-only, --numstat or --quiet diffs never run them.
//   - core.pager, core.editor, sequence.editor: env.go's GIT_PAGER and
//     GIT_EDITOR win over them, and git has no terminal.
//   - filter.<driver>.clean, smudge and process, merge.<driver>.driver:
//     a .gitattributes an agent writes in its worktree can name a driver,
//     but only configuration defines what it runs, and the configuration is
//     the person's (git-lfs is the common one, which must keep working);
//     an agent writing config is what the sandbox keeps out. The one
//     configuration file of a worktree's own git folder, config.worktree,
//     is refused by LinkedTree.
//   - uploadpack.packObjectsHook: git reads it only from the system and
//     global files, never a repository's, and Switchboard serves no fetch.
func safeConfig() [][2]string {
	return [][2]string{
		// A command git runs at every status, diff and add to ask which
		// files changed: "git status" would run whatever it names.
		{"core.fsmonitor", "false"},
		// No hook runs in the app's process, whichever folder the
		// repository's core.hooksPath names (husky's and lefthook's are
		// relative, inside the work tree an agent edits) or whatever is
		// in .git/hooks: no file exists below /dev/null, so git finds
		// none. This covers the hooks --no-verify leaves on (post-commit,
		// post-checkout, post-merge, reference-transaction, pre-push).
		{"core.hooksPath", "/dev/null"},
		// A remote URL "ext::<command>" runs the command. Git refuses it
		// by default; only configuration can allow it, and no remote the
		// app pushes to needs it.
		{"protocol.ext.allow", "never"},
	}
}

// safeConfigArgs is safeConfig as "-c key=value" arguments.
func safeConfigArgs() []string {
	var args []string
	for _, kv := range safeConfig() {
		args = append(args, "-c", kv[0]+"="+kv[1])
	}
	return args
}

// SafeConfigEnv is safeConfig as the variables git reads command-line
// configuration from (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n), for a program Switchboard starts that runs git
// itself (gh): the gits it starts are held to the same configuration as
// Switchboard's own. A caller drops inherited GIT_CONFIG_* variables
// first (IsConfigVar).
func SafeConfigEnv() []string {
	kvs := safeConfig()
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kvs))}
	for i, kv := range kvs {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

// IsConfigVar reports whether name is one of the variables git reads
// command-line configuration from; an inherited one would add to, or
// with GIT_CONFIG_COUNT renumber, what SafeConfigEnv sets.
func IsConfigVar(name string) bool {
	return name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" ||
		strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}
