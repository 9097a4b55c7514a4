package mcpserver

import (
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/store"
)

// Renaming and removing a repository: the person's, from the GUI and the
// CLI.
const (
	MethodRepositoryRename Name[RepositoryRenameArgs, RepositoryResult] = "repository.rename"
	MethodRepositoryRemove Name[RepositoryArgs, RepositoryResult]       = "repository.remove"
)

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
}
