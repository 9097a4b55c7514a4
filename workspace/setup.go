package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SetupFile is the program a repository may keep to set up each new
// worktree (install dependencies, generate files) before its agent starts,
// when the repository's settings name no setup command.
const SetupFile = ".switchboard/setup"

// ErrSetupNotRunnable is the cause of a FindSetup error: the file is there
// but is not a regular file with an execute bit (a symbolic link, a
// folder, a script that lost its mode). It is not run.
var ErrSetupNotRunnable = errors.New("not an executable regular file")

// FindSetup returns the absolute path of dir's .switchboard/setup when it
// is an executable regular file, "" when there is none. A symbolic link is
// not followed: the program run is the one in the worktree's own files.
func FindSetup(dir string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(SetupFile))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("look for %s: %w", SetupFile, err)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s (%v): %w", SetupFile, fi.Mode(), ErrSetupNotRunnable)
	}
	return p, nil
}
