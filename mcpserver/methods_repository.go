package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// Renaming and removing a repository: the person's, from the GUI and the
// CLI.
const (
	MethodRepositoryRename Name[RepositoryRenameArgs, RepositoryResult] = "repository.rename"
	MethodRepositoryRemove Name[RepositoryArgs, RepositoryResult]       = "repository.remove"
	// MethodRepositoryFirstCommit gives a repository with no commit yet
	// an empty first one, so that agents' worktrees can start from it.
	MethodRepositoryFirstCommit Name[RepositoryArgs, FirstCommitResult] = "repository.first_commit"
)

// FirstCommitResult is the result of repository.first_commit.
type FirstCommitResult struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
}

// RepositoryRenameArgs are the arguments of repository.rename.
type RepositoryRenameArgs struct {
	RepositoryID string `json:"repository_id"`
	Name         string `json:"name" jsonschema:"the new name, shown in lists and menus"`
}

// RepositoryArgs name one repository.
type RepositoryArgs struct {
	RepositoryID string `json:"repository_id"`
}

func (r *Registry) registerRepositoryEdits() {
	r.Register(Define(MethodRepositoryRename, On(Repository, store.CapAdmin), Hidden,
		"Give a repository another name.",
		func(c *Call, in RepositoryRenameArgs) (RepositoryResult, error) {
			repo, err := c.Tx.RenameRepository(in.RepositoryID, in.Name)
			return RepositoryResult{Repository: repo}, err
		}))
	r.Register(Define(MethodRepositoryRemove, On(Repository, store.CapAdmin), Hidden,
		"Forget a repository (its folder is left as it is). Refused while an agent runs there, a packet of it is unfinished or unlanded, or an agent's worktree of it remains.",
		func(c *Call, in RepositoryArgs) (RepositoryResult, error) {
			// Worktrees hold work not yet landed, and only this
			// repository's records say where they came from.
			if r.worktrees != "" {
				dir := filepath.Join(r.worktrees, in.RepositoryID)
				if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
					return RepositoryResult{}, store.Deny(store.CodeInvalidState,
						"%d agent worktrees of it remain in %s: land or discard them first (Settings ▸ Worktrees)", len(entries), dir)
				}
			}
			repo, err := c.Tx.RemoveRepository(in.RepositoryID)
			return RepositoryResult{Repository: repo}, err
		}))
	first := Define(MethodRepositoryFirstCommit, On(Repository, store.CapAdmin), Hidden,
		"Make an empty first commit on the branch of a repository that has none, for agents' worktrees to start from; what is staged or in the folder is left as it is.",
		func(c *Call, in RepositoryArgs) (FirstCommitResult, error) {
			made := c.Prepared
			return *made.(*FirstCommitResult), nil
		})
	first.Prepare = r.firstCommit
	r.Register(first)
}

// firstCommit is repository.first_commit's Prepare: git, outside the
// transaction, once the call is authorized on the repository.
func (r *Registry) firstCommit(c *Call) (any, error) {
	var in RepositoryArgs
	if err := c.Decode(&in); err != nil {
		return nil, nil // the handler refuses bad arguments
	}
	var repo store.Repository
	if err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		repo, err = tx.Repository(in.RepositoryID)
		return err
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	commit, err := workspace.FirstCommit(ctx, repo.Path)
	switch {
	case errors.Is(err, workspace.ErrHasCommit):
		return nil, store.Deny(store.CodeInvalidState, "%s has a commit already: agents' worktrees start from it", repo.Name)
	case errors.Is(err, workspace.ErrNoIdentity):
		return nil, store.Deny(store.CodeInvalidState, "%v: set them (git config user.name …, git config user.email …) and try again", err)
	case err != nil:
		return nil, store.Deny(store.CodeInvalidState, "no first commit made in %s: %v", repo.Name, err)
	}
	branch, _ := workspace.CurrentBranch(ctx, repo.Path)
	return &FirstCommitResult{Commit: commit, Branch: branch}, nil
}
