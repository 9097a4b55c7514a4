package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// Diff is the unified diff, as git prints it without colour, of one commit
// to another in dir (any worktree of the repository), renames found and
// binary files named as such; with to "" it is from the commit to the
// files in dir's work tree (tracked files only: Untracked lists the rest).
// Output past gitcmd.MaxStdout is an error, not a cut diff.
func Diff(ctx context.Context, dir, from, to string) ([]byte, error) {
	if from == "" || strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
		return nil, fmt.Errorf("diff %q..%q: want a commit to start from", from, to)
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--ignore-submodules=none", from}
	if to != "" {
		args = append(args, to)
	}
	out, err := gitcmd.Run(ctx, dir, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s in %s: %w", from, to, dir, err)
	}
	return out, nil
}

// Untracked lists the files in ws's work tree that git does not track and
// does not ignore: new files an agent has not committed, which a diff of
// the work tree does not show.
func Untracked(ctx context.Context, ws Workspace) ([]string, error) {
	if err := ws.check(); err != nil {
		return nil, err
	}
	out, err := gitcmd.Run(ctx, ws.Path, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("untracked files in %s: %w", ws.Path, err)
	}
	return splitZ(out), nil
}
