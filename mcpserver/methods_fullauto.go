package mcpserver

import (
	"fmt"
	"runtime"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

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

// MethodRepositoryUnconfined lets a repository's agents run unconfined, or
// confines them again.
const MethodRepositoryUnconfined Name[RepositoryUnconfinedArgs, RepositoryResult] = "repository.unconfined"

// RepositoryUnconfinedArgs are the arguments of repository.unconfined.
type RepositoryUnconfinedArgs struct {
	RepositoryID string `json:"repository_id"`
	// Unconfined records the person's choice; false takes it back.
	Unconfined bool `json:"unconfined"`
}

// registerUnconfined registers repository.unconfined: a person's choice,
// per repository and recorded with when and through what, that its agents
// run without Switchboard's sandbox (a tool the sandbox breaks). Never
// for full auto, which runs only confined.
func (r *Registry) registerUnconfined() {
	r.Register(Define(MethodRepositoryUnconfined, On(Repository, store.CapAdmin), Hidden,
		"Let a repository's agents run without Switchboard's sandbox (they can then read and write whatever you can), or confine them again.",
		func(c *Call, in RepositoryUnconfinedArgs) (RepositoryResult, error) {
			repo, err := c.Tx.SetUnconfined(in.RepositoryID, string(c.Transport), in.Unconfined)
			return RepositoryResult{Repository: repo}, err
		}))
}

// unconfinedWhy says why an agent in repo would run unconfined, "" when
// it runs confined: the person's choice for the repository, or a registry
// that confines nothing (no sandbox on this system).
func (r *Registry) unconfinedWhy(repo store.Repository) string {
	switch {
	case repo.Unconfined != nil:
		return fmt.Sprintf("its repository's agents run unconfined, as chosen through %s on %s", repo.Unconfined.By, repo.Unconfined.At.Local().Format(time.DateTime))
	case r.sandbox == nil:
		return "nothing confines agents on " + runtime.GOOS + " yet"
	}
	return ""
}
