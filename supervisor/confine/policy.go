// Package confine turns what one agent may reach into the kernel's terms:
// bubblewrap's arguments (a mount, PID, IPC and UTS namespace of its own),
// or a Landlock ruleset where user namespaces are refused (on macOS, a
// Seatbelt profile for sandbox-exec), and a process set (the PID
// namespace, a cgroup leaf) that holds everything the agent starts,
// whatever it does to leave its process group.
//
// A Policy is declared by the daemon, which knows the session's worktree,
// its repository and Switchboard's own folders; Check validates it against
// the file system once, and the result is turned into arguments as data,
// so the tests read it as a list.
package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Policy is what one agent may reach. Paths are absolute.
type Policy struct {
	// Home is the person's home folder: it may never be made writable.
	Home string
	// Dir is where the agent starts: its worktree, or the repository's
	// folder when it works there.
	Dir string
	// Writable are the folders and files the agent may change (its
	// worktree, the parts of the repository's .git a worktree must
	// write, its CLI's own state). Everything else stays read-only.
	Writable []string
	// ReadOnly are laid read-only over parts of Writable (a repository's
	// .git/config and hooks when an agent works in the folder itself), and
	// bound back inside a hidden folder where something there must be
	// reachable (the helper binary).
	ReadOnly []string
	// Hidden are the folders and files the agent must not see at all:
	// Switchboard's data and runtime folders, other agents' worktrees,
	// the session bus, the person's keys and credentials.
	Hidden []string
	// Files are bound read-only at a path of the sandbox's own choosing:
	// the session's token and MCP config, which must not name the
	// runtime folder they come from.
	Files []File
}

// File is one file bound into the sandbox at another path.
type File struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

// Checked is a Policy whose paths were resolved against the file system:
// links followed, missing hidden paths dropped (and said in Notes). Only
// Check makes one.
type Checked struct {
	Dir      string   `json:"dir"`
	Writable []string `json:"writable"`
	ReadOnly []string `json:"read_only,omitempty"`
	// HiddenDirs get an empty folder laid over them; HiddenFiles an empty
	// file.
	HiddenDirs  []string `json:"hidden_dirs,omitempty"`
	HiddenFiles []string `json:"hidden_files,omitempty"`
	Files       []File   `json:"files,omitempty"`
	// Notes say what was left out and why, for the session's record.
	Notes []string `json:"notes,omitempty"`
}

// ErrPolicy is the cause of every refusal of Check: the policy, as given,
// would not confine the agent.
var ErrPolicy = errors.New("confinement refused")

// Check resolves p against the file system and refuses what would not
// confine: a relative path, a working folder or a writable path that leads
// elsewhere through a link, a writable root, home or an ancestor of home, a
// working folder outside every writable path. A hidden path that does not
// exist is dropped with a note: there is nothing there to hide.
func Check(p Policy) (Checked, error) {
	fail := func(format string, a ...any) (Checked, error) {
		return Checked{}, fmt.Errorf("%w: %s", ErrPolicy, fmt.Sprintf(format, a...))
	}
	home, err := resolve(p.Home)
	if err != nil {
		return fail("home folder: %v", err)
	}
	var c Checked
	if c.Dir, err = resolveSame(p.Dir); err != nil {
		return fail("working folder: %v", err)
	}
	for _, w := range p.Writable {
		r, err := resolveSame(w)
		if errors.Is(err, os.ErrNotExist) {
			c.Notes = append(c.Notes, fmt.Sprintf("%s does not exist: not made writable", w))
			continue
		}
		if err != nil {
			return fail("writable path: %v", err)
		}
		if r == "/" || r == home || isUnder(home, r) {
			return fail("%s would make the whole of %s writable: an agent works in a project's folder, never in the home folder or above it", w, cmpOr(home, r))
		}
		c.Writable = append(c.Writable, r)
	}
	if !slices.ContainsFunc(c.Writable, func(w string) bool { return c.Dir == w || isUnder(c.Dir, w) }) {
		return fail("working folder %s is not writable", p.Dir)
	}
	for _, ro := range p.ReadOnly {
		r, err := resolveSame(ro)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fail("read-only path: %v", err)
		}
		c.ReadOnly = append(c.ReadOnly, r)
	}
	for _, h := range p.Hidden {
		r, err := resolve(h)
		if errors.Is(err, os.ErrNotExist) {
			c.Notes = append(c.Notes, fmt.Sprintf("%s does not exist: nothing to hide", h))
			continue
		}
		if err != nil {
			return fail("hidden path: %v", err)
		}
		if r == "/" || r == home || isUnder(home, r) {
			return fail("hiding %s would hide %s", h, cmpOr(home, r))
		}
		if slices.Contains(c.Writable, r) {
			return fail("%s is both writable and hidden", h)
		}
		fi, err := os.Stat(r)
		if err != nil {
			return fail("hidden path: %v", err)
		}
		if fi.IsDir() {
			c.HiddenDirs = append(c.HiddenDirs, r)
		} else {
			c.HiddenFiles = append(c.HiddenFiles, r)
		}
	}
	for _, f := range p.Files {
		if !filepath.IsAbs(f.Src) || !filepath.IsAbs(f.Dst) || filepath.Clean(f.Dst) != f.Dst {
			return fail("file %s → %s: both paths must be absolute and clean", f.Src, f.Dst)
		}
		c.Files = append(c.Files, f)
	}
	return c, nil
}

// resolve makes path absolute-checked and follows its links.
func resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path", path)
	}
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return r, nil
}

// resolveSame is resolve for a path the agent is handed by name: one that
// leads elsewhere through a link is refused, since the agent would be told
// one place and given another (and a worktree that is a link can lead out
// of every folder Switchboard checked).
func resolveSame(path string) (string, error) {
	r, err := resolve(path)
	if err != nil {
		return "", err
	}
	if r != filepath.Clean(path) {
		return "", fmt.Errorf("%s leads to %s through a link", path, r)
	}
	return r, nil
}

// isUnder reports whether path is strictly inside dir.
func isUnder(path, dir string) bool {
	if dir == "/" {
		return path != "/"
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

func cmpOr(a, b string) string {
	if b == "/" {
		return "/"
	}
	return a
}

// HomeSecrets are the folders and files under a person's home that hold
// keys and credentials no agent needs: hidden from every confined agent.
func HomeSecrets(home string) []string {
	rel := []string{
		".ssh", ".gnupg", ".aws", ".config/gh", ".netrc", ".docker", ".kube",
		".config/gcloud", ".azure", ".password-store", ".pgpass", ".git-credentials",
		".local/share/keyrings",
	}
	out := make([]string, len(rel))
	for i, s := range rel {
		out[i] = filepath.Join(home, s)
	}
	return out
}
