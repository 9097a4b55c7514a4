package cli

import (
	"context"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// repoRename is `repo rename ID NAME`.
func repoRename(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("repo rename", "repo rename ID NAME")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodRepositoryRename, mcpserver.RepositoryRenameArgs{RepositoryID: fs.Arg(0), Name: fs.Arg(1)})
	if err != nil {
		return err
	}
	c.printf("%s is now named %q.\n", out.Repository.ID, out.Repository.Name)
	return nil
}

// repoRemove is `repo remove ID`: Switchboard forgets the repository, and
// leaves its folder as it is.
func repoRemove(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("repo remove", "repo remove ID")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodRepositoryRemove, mcpserver.RepositoryArgs{RepositoryID: fs.Arg(0)})
	if err != nil {
		return err
	}
	c.printf("Removed %s (%s); its folder %s is left as it is.\n", out.Repository.Name, out.Repository.ID, out.Repository.Path)
	return nil
}

// repoFirstCommit is `repo first-commit ID`: an empty first commit in a
// repository that has none, for agents' worktrees to start from.
func repoFirstCommit(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("repo first-commit", "repo first-commit ID")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodRepositoryFirstCommit, mcpserver.RepositoryArgs{RepositoryID: fs.Arg(0)})
	if err != nil {
		return err
	}
	c.printf("Made an empty first commit %s on %s; nothing in the folder or staged was touched.\n", shortHash(out.Commit), out.Branch)
	return nil
}
