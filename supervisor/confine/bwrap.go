package confine

import (
	"cmp"
	"slices"
	"strings"
)

// mount is one step of the sandbox's file system: what is laid at dst.
type mount struct {
	dst  string
	rank int // at the same depth: hidden first, then binds over them
	args []string
}

// BwrapArgs returns bubblewrap's arguments for c, ending with "--": the
// caller appends the command. The whole file system is bound read-only,
// with a fresh /dev and /proc (of the agent's own PID namespace) and a
// private /tmp; then, from the shallowest path to the deepest, the hidden
// folders get an empty folder laid over them (files an empty file), the
// writable paths are bound back writable, the read-only ones over them,
// and the session's files at their own paths. Deeper wins, so a worktree
// inside Switchboard's hidden data folder is bound back into it.
//
// The agent gets PID, IPC and UTS namespaces of its own and no
// capabilities (root in the sandbox could otherwise unmount what hides);
// it keeps the network (its model's API, the loopback MCP endpoint).
// bubblewrap and the namespace's first process share one process group: a
// kill of that group ends the namespace, and with it whatever the agent
// started.
//
// There is no --die-with-parent: the kernel sends that signal when the
// thread that forked bubblewrap exits, and a Go program's threads do (a
// goroutine that ends locked to its thread takes the thread with it), so
// one session's end killed another's sandbox. A crash leaves the sandbox
// running; the next start ends it by its recorded pid, as it does any
// agent a crash left.
func BwrapArgs(c Checked) []string {
	args := []string{
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--cap-drop", "ALL",
		"--hostname", "switchboard-agent",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	var ms []mount
	for _, d := range c.HiddenDirs {
		// 0700 so that even the folder's emptiness says nothing.
		ms = append(ms, mount{d, 0, []string{"--perms", "0700", "--tmpfs", d}})
	}
	for _, f := range c.HiddenFiles {
		ms = append(ms, mount{f, 0, []string{"--ro-bind", "/dev/null", f}})
	}
	for _, w := range c.Writable {
		ms = append(ms, mount{w, 1, []string{"--bind", w, w}})
	}
	for _, r := range c.ReadOnly {
		ms = append(ms, mount{r, 2, []string{"--ro-bind", r, r}})
	}
	for _, f := range c.Files {
		ms = append(ms, mount{f.Dst, 3, []string{"--ro-bind", f.Src, f.Dst}})
	}
	slices.SortStableFunc(ms, func(a, b mount) int {
		return cmp.Or(cmp.Compare(depth(a.dst), depth(b.dst)), cmp.Compare(a.rank, b.rank), strings.Compare(a.dst, b.dst))
	})
	for _, m := range ms {
		args = append(args, m.args...)
	}
	return append(args, "--chdir", c.Dir, "--")
}

func depth(path string) int {
	if path == "/" {
		return 0
	}
	return strings.Count(path, "/")
}
