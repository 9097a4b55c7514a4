package gitcmd

import (
	"errors"
	"fmt"
	"strings"
)

// ErrRefused is the cause of a call Run would not start because the
// command can drop work that exists nowhere else: uncommitted changes,
// untracked files, commits only a branch or a reflog still reaches, or
// objects in .git/objects. No caller in Switchboard needs one of them; this
// check is here so that a mistake in one cannot cost a person their work.
var ErrRefused = errors.New("refused: the command can lose work")

// refusal returns why args must not run, or "" when they may. It reads
// the arguments the way git's option parser does where it matters: short
// options may be clustered ("-fd"), long options may be abbreviated to any
// unambiguous prefix ("--ha" is --hard), and nothing after "--" is an
// option. Where a form is unclear it refuses: a refused call fails loudly,
// a wrongly allowed one loses work silently.
func refusal(args []string) string {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if args[i] != "-c" {
			return fmt.Sprintf("global option %q: only -c key=value may come before the subcommand, and the folder is Run's", args[i])
		}
		i++
		if i == len(args) {
			return "-c without key=value"
		}
		if key, _, _ := strings.Cut(args[i], "="); strings.HasPrefix(strings.ToLower(key), "alias.") {
			// An alias would run a command this check never sees.
			return "-c alias.*: an alias hides the command it runs"
		}
	}
	if i == len(args) {
		return ""
	}
	cmd := args[i]
	o := parseOptions(args[i+1:])
	// The commands named below appear here only to be refused.
	switch cmd {
	case "clean": // refused, never run: it would delete a person's untracked files
		return "clean deletes untracked files"
	case "restore":
		return "restore overwrites uncommitted changes"
	case "gc", "prune", "prune-packed", "repack", "maintenance", "filter-branch":
		return cmd + " rewrites or deletes objects in .git/objects"
	case "reset":
		if o.long("hard", "merge", "keep") {
			return "reset --hard, --merge and --keep overwrite uncommitted changes"
		}
	case "checkout":
		switch {
		case o.short('f') || o.long("force"):
			return "checkout --force throws away uncommitted changes"
		case o.short('B'):
			return "checkout -B resets an existing branch, dropping its commits"
		case o.dashdash || o.long("pathspec-from-file"):
			return "checkout of paths overwrites their uncommitted changes"
		}
	case "switch":
		switch {
		case o.short('f') || o.long("force", "discard-changes"):
			return "switch --discard-changes throws away uncommitted changes"
		case o.short('C') || o.long("force-create"):
			return "switch -C resets an existing branch, dropping its commits"
		}
	case "rm":
		if o.short('f') || o.long("force") {
			return "rm --force deletes files with uncommitted changes"
		}
	case "checkout-index":
		if o.short('f') || o.long("force") {
			return "checkout-index --force overwrites uncommitted changes"
		}
	case "read-tree":
		if o.short('u') || o.long("reset") {
			return "read-tree -u and --reset overwrite the work tree"
		}
	case "branch":
		if o.short('D') || o.short('f') || o.long("force") || o.short('M') || o.short('C') {
			return "branch -D, -f, -M and -C delete or move a branch whatever its commits (branch -d is the safe delete)"
		}
	case "push":
		if o.short('f') || o.short('d') || o.long("force", "force-with-lease", "force-if-includes", "mirror", "delete", "prune") {
			return "push --force, --mirror, --delete and --prune can drop commits on the remote"
		}
		for _, a := range o.operands {
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") {
				return "push of a +refspec forces it, of a :refspec deletes it"
			}
		}
	case "update-ref":
		if o.short('d') {
			return "update-ref -d deletes a ref whatever it reaches"
		}
	case "symbolic-ref":
		if o.short('d') || o.long("delete") {
			return "symbolic-ref --delete removes HEAD"
		}
	case "stash":
		if a := o.action(); a == "drop" || a == "clear" {
			return "stash " + a + " deletes stashed changes"
		}
	case "reflog":
		if a := o.action(); a == "expire" || a == "delete" {
			return "reflog " + a + " forgets the last way to reach lost commits"
		}
	case "worktree":
		// worktree prune only forgets worktrees whose folder is gone.
		if o.action() == "remove" && (o.short('f') || o.long("force")) {
			return "worktree remove --force deletes uncommitted changes and untracked files"
		}
	case "merge", "rebase", "cherry-pick", "revert", "am":
		if o.long("abort", "skip") {
			return cmd + " --abort and --skip reset the work tree, taking uncommitted changes with it"
		}
	}
	return ""
}

// options are a subcommand's arguments split the way refusal needs them.
type options struct {
	flags    []string // arguments before "--" that start with "-" ("-" alone excluded)
	operands []string // the other arguments before "--", option values included
	dashdash bool     // a "--" was given: what follows is paths
}

func parseOptions(args []string) options {
	var o options
	for _, a := range args {
		switch {
		case a == "--":
			o.dashdash = true
			return o
		case len(a) > 1 && a[0] == '-':
			o.flags = append(o.flags, a)
		default:
			o.operands = append(o.operands, a)
		}
	}
	return o
}

// short reports whether c appears in a cluster of short options ("-fdx").
// An option's attached value ("-mfix") counts too, which can only refuse
// more, never less.
func (o options) short(c byte) bool {
	for _, f := range o.flags {
		if !strings.HasPrefix(f, "--") && strings.IndexByte(f[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// long reports whether a long option names one of names: in full, with a
// value ("--force-with-lease=main"), or abbreviated to a prefix of it, as
// git accepts ("--ha" for --hard).
func (o options) long(names ...string) bool {
	for _, f := range o.flags {
		if !strings.HasPrefix(f, "--") {
			continue
		}
		given, _, _ := strings.Cut(f[2:], "=")
		if given == "" {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, given) {
				return true
			}
		}
	}
	return false
}

// action is the first operand: "drop" in "stash drop stash@{0}".
func (o options) action() string {
	if len(o.operands) == 0 {
		return ""
	}
	return o.operands[0]
}
