package mcpserver

import "github.com/switchboard-dev/switchboard/store"

// MethodRepositoryFullAuto confirms or withdraws full auto for a repository.
const MethodRepositoryFullAuto Name[RepositoryFullAutoArgs, RepositoryResult] = "repository.full_auto"

// RepositoryFullAutoArgs are the arguments of repository.full_auto.
type RepositoryFullAutoArgs struct {
	RepositoryID string `json:"repository_id"`
	// Confirmed records the person's confirmation (as agent.start's
	// confirm_full_auto does); false withdraws it.
	Confirmed bool `json:"confirmed"`
}

// registerFullAuto registers repository.full_auto: a person's yes to full
// auto in a repository, or taking it back, apart from starting an agent.
func (r *Registry) registerFullAuto() {
	r.Register(Define(MethodRepositoryFullAuto, On(Repository, store.CapAdmin), Hidden,
		"Confirm full auto (the agent CLI's own bypass mode, in worktrees) for a repository, or withdraw the confirmation so the next full-auto start asks again.",
		func(c *Call, in RepositoryFullAutoArgs) (RepositoryResult, error) {
			var repo store.Repository
			var err error
			if in.Confirmed {
				repo, err = c.Tx.ConfirmFullAuto(in.RepositoryID, string(c.Transport))
			} else {
				repo, err = c.Tx.WithdrawFullAuto(in.RepositoryID)
			}
			return RepositoryResult{Repository: repo}, err
		}))
}
