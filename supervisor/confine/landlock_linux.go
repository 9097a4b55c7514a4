package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is asked for with x/sys/unix's three system calls rather than
// go-landlock: its syscall package pulls in libcap's psx, whose cgo build
// wraps pthread_create in every binary that links it, the GUI's among
// them. The helper restricts one thread and execs from it, which needs
// none of that.

// LandlockABI returns the Landlock ABI version the kernel offers, 0 when it
// offers none (too old, or not enabled at boot).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Access rights by the Landlock ABI that brought them: a right the kernel
// does not know is left out of the ruleset (best effort by the ABI).
const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llFile are the rights that apply to a file (the rest are a folder's).
	llFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llV1 = llRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
)

// handled is what a ruleset restricts on a kernel of ABI abi: every file
// right it knows (writes outside the writable set, reads of hidden paths)
// and, from ABI 6, the two IPC scopes: the agent can neither signal a
// process outside its domain (the app among them) nor reach an abstract
// Unix socket (the session bus's usual address). The network is left
// alone: the agent needs its model's API and the MCP endpoint.
func handled(abi int) (fs, scoped uint64) {
	fs = llV1
	if abi >= 2 {
		fs |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 6 {
		scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	return fs, scoped
}

// llRule grants access beneath path (or to the file path).
type llRule struct {
	path   string
	access uint64
}

// landlockRules are c as Landlock rules: the writable paths read-write,
// /dev and /tmp read-write (no private ones without a mount namespace;
// /tmp less what is hidden in it),
// the session's files read-only where they are, and everything else
// readable but the hidden paths. Landlock only grants, so "everything but"
// is the file system walked down along the hidden paths, granting each
// sibling on the way (readable).
func landlockRules(c Checked) ([]llRule, error) {
	hidden := slices.Concat(c.HiddenDirs, c.HiddenFiles)
	roDirs, roFiles, err := readable("/", hidden)
	if err != nil {
		return nil, err
	}
	var rules []llRule
	for _, d := range roDirs {
		rules = append(rules, llRule{d, llRead})
	}
	for _, f := range roFiles {
		rules = append(rules, llRule{f, llRead & llFile})
	}
	for _, f := range c.Files {
		rules = append(rules, llRule{f.Src, llRead & llFile})
	}
	all, _ := handled(7)
	for _, w := range append(slices.Clone(c.Writable), "/dev") {
		rules = append(rules, llRule{w, all})
	}
	// /tmp is shared and writable, but for what is hidden in it.
	tmpDirs, tmpFiles, err := readable("/tmp", hidden)
	if err != nil {
		return nil, err
	}
	for _, t := range slices.Concat(tmpDirs, tmpFiles) {
		rules = append(rules, llRule{t, all})
	}
	return rules, nil
}

// readable returns the folders and files under dir that may be read whole:
// dir itself when no hidden path is in it, else its entries, each whole or
// walked in turn, leaving the hidden ones out. The walk goes down the
// hidden paths only, so it reads a handful of folders.
func readable(dir string, hidden []string) (dirs, files []string, err error) {
	if !slices.ContainsFunc(hidden, func(h string) bool { return isUnder(h, dir) }) {
		return []string{dir}, nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list %s to hide what is in it: %w", dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(hidden, p):
			continue
		case e.IsDir():
			d, f, err := readable(p, hidden)
			if err != nil {
				return nil, nil, err
			}
			dirs, files = append(dirs, d...), append(files, f...)
		case e.Type()&os.ModeSymlink != 0:
			// A link is granted as what it names (the rule opens it),
			// unless that is hidden.
			r, err := filepath.EvalSymlinks(p)
			if err != nil || slices.ContainsFunc(hidden, func(h string) bool { return r == h || isUnder(r, h) }) {
				continue
			}
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				dirs = append(dirs, p)
			} else {
				files = append(files, p)
			}
		default:
			files = append(files, p)
		}
	}
	return dirs, files, nil
}

// restrictThread restricts the calling thread, and what it execs, to c.
// no_new_privs first: the kernel requires it of an unprivileged caller,
// and it keeps a setuid program from shedding the ruleset.
func restrictThread(c Checked) error {
	abi := LandlockABI()
	if abi == 0 {
		return errors.New("the kernel offers no Landlock")
	}
	rules, err := landlockRules(c)
	if err != nil {
		return err
	}
	fs, scoped := handled(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: fs, Scoped: scoped}
	size := unsafe.Sizeof(attr)
	if abi < 6 {
		size = unsafe.Offsetof(attr.Scoped) // older kernels know only the first two fields
	}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock ruleset: %w", errno)
	}
	ruleset := int(r)
	defer unix.Close(ruleset)
	for _, rule := range rules {
		if err := addRule(ruleset, rule, fs); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock restrict: %w", errno)
	}
	return nil
}

// addRule adds one rule, its rights cut to what the ruleset handles (and
// to a file's rights for a file, which the kernel requires). A path gone
// since the walk is skipped: there is nothing to grant.
func addRule(ruleset int, rule llRule, fs uint64) error {
	fd, err := unix.Open(rule.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", rule.path, err)
	}
	defer unix.Close(fd)
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rule.access & fs, Parent_fd: int32(fd)}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		attr.Allowed_access &= llFile
	}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: grant %s: %w", rule.path, errno)
	}
	return nil
}

// restrictScopes restricts the calling thread, and what it execs, to its
// own IPC: no abstract Unix socket and no signal outside its domain. No
// file right is handled: the mount namespace holds the file system.
func restrictScopes() error {
	_, scoped := handled(LandlockABI())
	attr := unix.LandlockRulesetAttr{Scoped: scoped}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock scopes: %w", errno)
	}
	defer unix.Close(int(r))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, r, 0, 0); errno != 0 {
		return fmt.Errorf("landlock restrict: %w", errno)
	}
	return nil
}
