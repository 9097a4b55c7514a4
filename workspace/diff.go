package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// Diff is the unified diff, as git prints it without colour, of one commit
// to another in the repository at repoPath (the person's folder: commits are
// the same in every worktree), renames found and binary files named as
// such. Output past gitcmd.MaxStdout is an error, not a cut diff. A
// worktree's uncommitted changes are WorkTreeDiff's.
func Diff(ctx context.Context, repoPath, from, to string) ([]byte, error) {
	if from == "" || to == "" || strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
		return nil, fmt.Errorf("diff %q..%q: want two commits", from, to)
	}
	out, err := gitcmd.Run(ctx, repoPath, diffArgs(from, to)...)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s in %s: %w", from, to, repoPath, err)
	}
	return out, nil
}

// WorkTreeDiff is Diff from ws's BaseCommit to the files in its work tree
// (tracked files only: Untracked lists the rest), with git told the
// worktree's git folders (Workspace.Tree).
func WorkTreeDiff(ctx context.Context, ws Workspace) ([]byte, error) {
	if err := ws.check(); err != nil {
		return nil, err
	}
	t, err := ws.Tree(ctx)
	if err != nil {
		return nil, fmt.Errorf("diff of worktree %s: %w", ws.Path, err)
	}
	out, err := gitcmd.RunTree(ctx, t, diffArgs(ws.BaseCommit, "")...)
	if err != nil {
		return nil, fmt.Errorf("diff of worktree %s from %s: %w", ws.Path, ws.BaseCommit, err)
	}
	return out, nil
}

// diffArgs are the arguments of a diff the app shows. No external diff
// program and no textconv filter: both are commands the repository's
// configuration names, and a .gitattributes in an agent's commit or
// worktree chooses which applies to which file.
func diffArgs(from, to string) []string {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--ignore-submodules=none", from}
	if to != "" {
		args = append(args, to)
	}
	return append(args, "--")
}

// Untracked lists the files in ws's work tree that git does not track and
// does not ignore: new files an agent has not committed, which a diff of
// the work tree does not show.
func Untracked(ctx context.Context, ws Workspace) ([]string, error) {
	if err := ws.check(); err != nil {
		return nil, err
	}
	t, err := ws.Tree(ctx)
	if err != nil {
		return nil, fmt.Errorf("untracked files in %s: %w", ws.Path, err)
	}
	out, err := gitcmd.RunTree(ctx, t, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("untracked files in %s: %w", ws.Path, err)
	}
	return splitZ(out), nil
}
