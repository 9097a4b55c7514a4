package confine

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// SeatbeltPath is macOS's sandbox-exec, always by this path: one found on
// PATH could be anyone's.
const SeatbeltPath = "/usr/bin/sandbox-exec"

// SeatbeltArgs returns sandbox-exec's arguments for c, ending with "--":
// the caller appends the command, as it does to BwrapArgs. The synopsis is
// `sandbox-exec -p PROFILE command [args...]`; sandbox-exec reads its
// options with getopt(3), which takes "--" as their end (Codex's macOS
// sandbox passes it too), so a command whose name starts with "-" is
// never read as an option.
//
// sandbox-exec does not change folder: the caller starts it in c.Dir.
// The supervisor runs agents with it on macOS; the profile is made and
// tested everywhere.
func SeatbeltArgs(c Checked) []string {
	return []string{"-p", SeatbeltProfile(c), "--"}
}

// SeatbeltProfile returns c as a Seatbelt profile (SBPL) for sandbox-exec:
// the same policy bubblewrap and Landlock are given on Linux.
//
// The profile denies by default and allows what command-line tools need
// to run at all (exec and fork, signals and process information within
// the agent's own sandbox, sysctl reads, the system services a shell, git,
// Node and the TLS stack look up) and the whole network, which stays open
// in our design. Every file is readable; only the writable paths, the
// terminal devices and the temporary folders are writable. Then come the
// policy's paths, as on Linux: hidden ones unreadable, unwritable and
// unconnectable, writable ones bound back, read-only ones laid over them,
// the session's files readable.
//
// SBPL reads rules in order and, for one operation on one path, the last
// rule that matches decides. The path rules are therefore written from the
// shallowest path to the deepest (hidden, then writable, then read-only at
// the same path), so the deepest path that holds a file decides for it,
// as the deeper mount does under bubblewrap: a worktree inside the hidden
// data folder is readable and writable again, a read-only .git/config
// inside a writable checkout is not writable.
//
// Seatbelt matches the paths the kernel resolved, so a profile must name
// /private/tmp, not /tmp; Check has already followed every link in c.
//
// What Seatbelt cannot do that bubblewrap does: lay a file at another
// path. A File is readable where it is (its Src), as under Landlock, and
// its Dst is not made; the supervisor names Src to the agent. /tmp is the
// person's, shared with other agents, as under Landlock.
func SeatbeltProfile(c Checked) string {
	var b strings.Builder
	for _, l := range seatbeltBase {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(seatbeltPathsHeader)
	b.WriteByte('\n')
	for _, l := range seatbeltPathRules(c) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// seatbeltBase is the part of every profile that does not depend on the
// policy. Each rule is one line, so the tests read the profile as lines.
var seatbeltBase = []string{
	"(version 1)",
	"; Switchboard: one agent's confinement, made from its policy by confine.SeatbeltProfile.",
	"; For one operation on one path, the last rule that matches decides.",
	"(deny default)",
	"; Processes: the agent's children inherit this profile.",
	"(allow process-exec)",
	"(allow process-fork)",
	"; Signals and process information reach the agent's own sandbox only, never the app.",
	"(allow signal (target same-sandbox))",
	"(allow process-info* (target same-sandbox))",
	"; Reading sysctls says nothing secret; tools ask many (CPUs, memory, OS version).",
	"(allow sysctl-read)",
	"; Java asks its CPU type through a sysctl that is classed as a write.",
	`(allow sysctl-write (sysctl-name "kern.grade_cputype"))`,
	"; Node's os.cpus() asks the host port.",
	"(allow mach-host*)",
	"; Power state, read by tools that keep the machine awake.",
	"(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))",
	"; System services: user and group lookups, the temporary and cache folders' names,",
	"; preferences, logging, notifications, certificate trust, DNS and proxy settings,",
	"; file watching, power assertions. Not the keychain (com.apple.SecurityServer):",
	"; it is the person's keyring, hidden as the session keyring is on Linux.",
	`(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))`,
	`(allow mach-lookup (global-name "com.apple.system.opendirectoryd.membership"))`,
	`(allow mach-lookup (global-name "com.apple.system.DirectoryService.libinfo_v1"))`,
	`(allow mach-lookup (global-name "com.apple.bsd.dirhelper"))`,
	`(allow mach-lookup (global-name "com.apple.cfprefsd.daemon"))`,
	`(allow mach-lookup (global-name "com.apple.cfprefsd.agent"))`,
	`(allow mach-lookup (local-name "com.apple.cfprefsd.agent"))`,
	`(allow mach-lookup (global-name "com.apple.system.logger"))`,
	`(allow mach-lookup (global-name "com.apple.logd"))`,
	`(allow mach-lookup (global-name "com.apple.diagnosticd"))`,
	`(allow mach-lookup (global-name "com.apple.system.notification_center"))`,
	`(allow mach-lookup (global-name "com.apple.trustd"))`,
	`(allow mach-lookup (global-name "com.apple.trustd.agent"))`,
	`(allow mach-lookup (global-name "com.apple.ocspd"))`,
	`(allow mach-lookup (global-name "com.apple.networkd"))`,
	`(allow mach-lookup (global-name "com.apple.SystemConfiguration.DNSConfiguration"))`,
	`(allow mach-lookup (global-name "com.apple.SystemConfiguration.configd"))`,
	`(allow mach-lookup (global-name "com.apple.FSEvents"))`,
	`(allow mach-lookup (global-name "com.apple.PowerManagement.control"))`,
	"(allow user-preference-read)",
	`(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))`,
	`(allow ipc-posix-shm-read* (ipc-posix-name "apple.shm.notification_center"))`,
	"; Python's multiprocessing locks.",
	"(allow ipc-posix-sem)",
	"; The network stays open: the model's API, the loopback MCP endpoint. Unix sockets",
	"; in hidden folders are closed again below.",
	"(allow network*)",
	"(allow system-socket)",
	"; Terminals: new ones (openpty), and the agent's own, made before the sandbox.",
	"(allow pseudo-tty)",
	`(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))`,
	`(allow file-read* file-write* file-ioctl (literal "/dev/tty"))`,
	`(allow file-read* file-write* file-ioctl (regex #"^/dev/ttys[0-9]+$"))`,
	`(allow file-write* (literal "/dev/null"))`,
	"; Writing to an open descriptor by name: echo >/dev/stderr.",
	`(allow file-write-data (subpath "/dev/fd"))`,
	"; dyld registers DTrace probes (Node has some).",
	`(allow file-ioctl (literal "/dev/dtracehelper"))`,
	"; Every file is readable but what is hidden below.",
	"(allow file-read*)",
	"; Temporary folders: macOS has no private /tmp to give, so the shared one is",
	"; writable, as under Landlock, and the per-user folders under /private/var/folders:",
	"; T is $TMPDIR, where most tools write; C is the cache folder the system's own",
	"; frameworks write to when the network is used (as ~/.cache is writable on Linux).",
	"; Each user's T and C are theirs alone (0700), so the pattern reaches the person's",
	"; own, whatever $TMPDIR is called.",
	`(allow file-write* (subpath "/private/tmp"))`,
	`(allow file-write* (regex #"^/private/var/folders/[^/]+/[^/]+/[TC](/|$)"))`,
}

// seatbeltPathsHeader starts the policy's own rules.
const seatbeltPathsHeader = "; The policy's paths, shallowest first: the deepest path that holds a file decides for it."

// A seatbeltRule is the profile's lines for one path of the policy.
type seatbeltRule struct {
	path  string
	rank  int // at the same path: hidden first, then what binds over it
	lines []string
}

// seatbeltPathRules are c's paths as SBPL rules, ordered so that the last
// rule matching a path is the deepest one's.
//
// A hidden folder is denied whole, its Unix sockets too (network* allows
// them everywhere). What is bound back inside it (a worktree, the helper
// binary, a session's file) gets its folders on the way made statable
// again, as bubblewrap makes them in its empty folder: without that,
// realpath(3), Node's module resolution and git's discovery of its
// repository fail on the first folder they cannot stat.
func seatbeltPathRules(c Checked) []string {
	var rs []seatbeltRule
	for _, d := range c.HiddenDirs {
		rs = append(rs, seatbeltRule{d, 0, []string{
			"(deny file-read* file-write* (subpath " + sbplString(d) + "))",
			"(deny network-outbound (remote unix-socket (subpath " + sbplString(d) + ")))",
		}})
	}
	for _, f := range c.HiddenFiles {
		rs = append(rs, seatbeltRule{f, 0, []string{
			"(deny file-read* file-write* (literal " + sbplString(f) + "))",
			"(deny network-outbound (remote unix-socket (subpath " + sbplString(f) + ")))",
		}})
	}
	var inside []string // what must be reached through hidden folders
	for _, w := range c.Writable {
		rs = append(rs, seatbeltRule{w, 2, []string{
			"(allow file-read* file-write* (subpath " + sbplString(w) + "))",
			"(allow network-outbound (remote unix-socket (subpath " + sbplString(w) + ")))",
		}})
		inside = append(inside, w)
	}
	for _, r := range c.ReadOnly {
		rs = append(rs, seatbeltRule{r, 3, []string{
			"(allow file-read* (subpath " + sbplString(r) + "))",
			"(deny file-write* (subpath " + sbplString(r) + "))",
		}})
		inside = append(inside, r)
	}
	for _, f := range c.Files {
		rs = append(rs, seatbeltRule{f.Src, 4, []string{
			"(allow file-read* (literal " + sbplString(f.Src) + "))",
			"(deny file-write* (literal " + sbplString(f.Src) + "))",
		}})
		inside = append(inside, f.Src)
	}
	// The folders between a hidden folder (itself included) and what is
	// bound back inside it: each once, statable, never listed.
	seen := map[string]bool{}
	for _, p := range inside {
		for a := filepath.Dir(p); a != p && !seen[a]; p, a = a, filepath.Dir(a) {
			if slices.ContainsFunc(c.HiddenDirs, func(h string) bool { return a == h || isUnder(a, h) }) {
				seen[a] = true
				rs = append(rs, seatbeltRule{a, 1, []string{"(allow file-read-metadata (literal " + sbplString(a) + "))"}})
			}
		}
	}
	slices.SortStableFunc(rs, func(a, b seatbeltRule) int {
		return cmp.Or(cmp.Compare(depth(a.path), depth(b.path)), cmp.Compare(a.rank, b.rank), strings.Compare(a.path, b.path))
	})
	var out []string
	for _, r := range rs {
		out = append(out, r.lines...)
	}
	return out
}

// sbplString quotes s as an SBPL (Scheme) string: backslash and double
// quote escaped, and a newline written \n so that every rule stays on one
// line.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
