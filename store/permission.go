package store

import (
	"time"
)

// Confirmation records that a person agreed, once, to something about a
// repository that a setting alone must not turn on: full auto, unconfined
// agents.
type Confirmation struct {
	// By says through what the person confirmed ("gui", "rpc").
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// FullAutoConfirmation records that a person agreed, once, that agents in a
// repository may run in the CLI's bypass mode (in worktrees of their own).
type FullAutoConfirmation = Confirmation

// ConfirmFullAuto records a person's confirmation of full auto for a
// repository (kept while one is already recorded).
func (tx *Tx) ConfirmFullAuto(id, by string) (Repository, error) {
	r, err := tx.Repository(id)
	if err != nil {
		return Repository{}, err
	}
	if r.FullAuto != nil {
		return r, nil
	}
	if len(by) > maxSessionName {
		by = by[:maxSessionName]
	}
	r.FullAuto = &FullAutoConfirmation{By: by, At: tx.now}
	return r, tx.putRepository(r)
}

// WithdrawFullAuto takes back a repository's confirmation of full auto:
// the next full-auto start there asks again. Agents already running keep
// their mode.
func (tx *Tx) WithdrawFullAuto(id string) (Repository, error) {
	r, err := tx.Repository(id)
	if err != nil {
		return Repository{}, err
	}
	if r.FullAuto == nil {
		return r, nil
	}
	r.FullAuto = nil
	return r, tx.putRepository(r)
}

// SetUnconfined records a person's choice that a repository's agents run
// unconfined (on), or takes it back (off): the next agent there starts
// confined again. Agents already running keep what they started with.
func (tx *Tx) SetUnconfined(id, by string, on bool) (Repository, error) {
	r, err := tx.Repository(id)
	if err != nil {
		return Repository{}, err
	}
	switch {
	case on && r.Unconfined == nil:
		if len(by) > maxSessionName {
			by = by[:maxSessionName]
		}
		r.Unconfined = &Confirmation{By: by, At: tx.now}
	case !on && r.Unconfined != nil:
		r.Unconfined = nil
	default:
		return r, nil
	}
	return r, tx.putRepository(r)
}
