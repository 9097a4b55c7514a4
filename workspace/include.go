package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// A new worktree has only what git tracks. What an agent also needs to run
// the project (.env, a local config, certificates) is ignored by git and
// so exists only in the person's checkout; the repository names those
// files in .worktreeinclude, with .gitignore's patterns, and they are
// copied into each new worktree.

// IncludeFile is the file, at the top of the person's checkout, that lists
// what to copy into new worktrees.
const IncludeFile = ".worktreeinclude"

// Bounds on a copy. A pattern that matches a dependency folder
// (node_modules/) is refused whole rather than half copied: the agent
// would start in a worktree that looks set up and is not.
const (
	MaxIncludeFiles = 2000
	MaxIncludeBytes = 256 << 20
	// maxIncludeList bounds .worktreeinclude itself.
	maxIncludeList = 64 << 10
)

// ErrIncludeTooLarge is the cause of a CopyIncluded refused because what
// .worktreeinclude matches passes MaxIncludeFiles or MaxIncludeBytes.
// Nothing was copied.
var ErrIncludeTooLarge = errors.New(".worktreeinclude matches too much")

// Included is what CopyIncluded copied.
type Included struct {
	// Files and Bytes count the files copied.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Cloned is how many of them are reflinks (copy-on-write clones
	// sharing the original's blocks), on filesystems that have them.
	Cloned int `json:"cloned"`
	// Skipped are the matching paths not copied, each with why: a symbolic
	// link leading outside the checkout, not a regular file, already in
	// the worktree.
	Skipped []string `json:"skipped,omitempty"`
}

// CopyIncluded copies into the worktree at worktreePath the files that the
// .worktreeinclude at the top of repoPath's checkout matches and git does
// not track there (ignored or untracked files: git ls-files --others
// --ignored with the list's patterns), each to the same place, with its
// permission bits, as a reflink where the filesystem can make one. Without
// a .worktreeinclude it does nothing.
//
// It reads only inside the checkout and writes only inside the worktree
// (os.Root): a symbolic link that leads outside the checkout is not
// followed, one inside is copied as the file it names. It never replaces a
// file the worktree has. Beyond MaxIncludeFiles or MaxIncludeBytes it
// copies nothing and fails with ErrIncludeTooLarge.
func CopyIncluded(ctx context.Context, repoPath, worktreePath string) (Included, error) {
	var inc Included
	fail := func(err error) (Included, error) {
		return inc, fmt.Errorf("copy %s files into %s: %w", IncludeFile, worktreePath, err)
	}
	out, err := gitcmd.Run(ctx, repoPath, "rev-parse", "--show-toplevel")
	if err != nil {
		return fail(err)
	}
	top := strings.TrimSuffix(string(out), "\n")
	list := filepath.Join(top, IncludeFile)
	info, err := os.Lstat(list)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return inc, nil
	case err != nil:
		return fail(err)
	case !info.Mode().IsRegular():
		return fail(fmt.Errorf("%s is not a regular file", list))
	case info.Size() > maxIncludeList:
		return fail(fmt.Errorf("%s is %d bytes, at most %d read", list, info.Size(), maxIncludeList))
	}
	out, err = gitcmd.Run(ctx, top, "ls-files", "-z", "--others", "--ignored", "--exclude-from="+list)
	if err != nil {
		return fail(err)
	}
	names := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(out) == 0 {
		names = nil
	}
	if len(names) > MaxIncludeFiles {
		return fail(fmt.Errorf("%w: %d files, at most %d copied", ErrIncludeTooLarge, len(names), MaxIncludeFiles))
	}
	src, err := os.OpenRoot(top)
	if err != nil {
		return fail(err)
	}
	defer src.Close()
	dst, err := os.OpenRoot(worktreePath)
	if err != nil {
		return fail(err)
	}
	defer dst.Close()

	// All sizes first: a copy over the bounds must not leave half its
	// files behind.
	type file struct {
		rel  string
		mode fs.FileMode
	}
	var todo []file
	var total int64
	for _, name := range names {
		rel := filepath.FromSlash(name)
		// Stat follows a symbolic link only while it stays inside the
		// checkout; one that leaves it (or is absolute) is an error.
		fi, err := src.Stat(rel)
		switch {
		case err != nil:
			inc.Skipped = append(inc.Skipped, name+": "+skipReason(err))
			continue
		case !fi.Mode().IsRegular():
			inc.Skipped = append(inc.Skipped, name+": not a regular file")
			continue
		}
		if _, err := dst.Lstat(rel); err == nil {
			inc.Skipped = append(inc.Skipped, name+": the worktree has it already")
			continue
		}
		total += fi.Size()
		if total > MaxIncludeBytes {
			return fail(fmt.Errorf("%w: more than %d MiB", ErrIncludeTooLarge, MaxIncludeBytes>>20))
		}
		todo = append(todo, file{rel, fi.Mode().Perm()})
	}
	for _, f := range todo {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		n, cloned, err := copyInto(src, dst, f.rel, f.mode)
		if err != nil {
			return fail(err)
		}
		inc.Files++
		inc.Bytes += n
		if cloned {
			inc.Cloned++
		}
	}
	return inc, nil
}

// skipReason says why a listed path could not be read, without the
// checkout's absolute path.
func skipReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if strings.Contains(err.Error(), "escapes") {
		return "a symbolic link leading outside the repository"
	}
	return err.Error()
}

// copyInto copies rel from src to a new file in dst with mode: a reflink
// when the filesystem makes one, else the bytes. It reports the size and
// whether it cloned.
func copyInto(src, dst *os.Root, rel string, mode fs.FileMode) (int64, bool, error) {
	in, err := src.Open(rel)
	if err != nil {
		return 0, false, err
	}
	defer in.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := dst.MkdirAll(dir, 0o777); err != nil {
			return 0, false, err
		}
	}
	// O_EXCL: never through a link, never over a file.
	out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, false, err
	}
	n, cloned, err := cloneOrCopy(out, in)
	if err == nil {
		// The umask may have taken bits the original has.
		err = out.Chmod(mode)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, false, fmt.Errorf("copy %s: %w", rel, err)
	}
	return n, cloned, nil
}

// cloneOrCopy makes out a reflink of in (FICLONE) or, where the
// filesystem cannot (ext4, tmpfs, across filesystems), copies the bytes.
func cloneOrCopy(out, in *os.File) (int64, bool, error) {
	fi, err := in.Stat()
	if err != nil {
		return 0, false, err
	}
	if cloneFile(out, in) == nil {
		return fi.Size(), true, nil
	}
	// io.Copy between two files uses copy_file_range where it can.
	n, err := io.Copy(out, in)
	return n, false, err
}
