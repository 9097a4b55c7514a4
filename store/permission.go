package store

import (
	"slices"
	"time"
)

// Permission is how much a supervised agent may do without asking a
// person. Each profile maps the modes to its CLI's own flags
// (Profile.Permissions); Switchboard's own MCP tools are allowed in every
// mode by the profile's base arguments.
type Permission string

const (
	// PermissionAsk: the CLI asks a person before edits and commands. ""
	// means ask.
	PermissionAsk Permission = "ask"
	// PermissionEdits: file edits in the session's folder go ahead without
	// asking; commands still ask.
	PermissionEdits Permission = "edits"
	// PermissionAuto: the CLI's own bypass (yolo) mode. Only for a session
	// in a worktree of its own, and only in a repository where a person
	// confirmed it once (RepositorySettings.FullAuto).
	PermissionAuto Permission = "auto"
)

// Permissions returns the modes, from the most careful.
func Permissions() []Permission {
	return []Permission{PermissionAsk, PermissionEdits, PermissionAuto}
}

// Or returns p, or ask when p is empty.
func (p Permission) Or() Permission {
	if p == "" {
		return PermissionAsk
	}
	return p
}

// Valid reports whether p is a mode (or empty, which is ask).
func (p Permission) Valid() bool {
	return p == "" || slices.Contains(Permissions(), p)
}

// CheckPermission refuses a mode that is not one of Permissions().
func CheckPermission(p Permission) error {
	if !p.Valid() {
		return Deny(CodeInvalidArgument, "permission must be %q, %q or %q, not %q", PermissionAsk, PermissionEdits, PermissionAuto, shortText(string(p)))
	}
	return nil
}

// shortText cuts a caller's text for an error message.
func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

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
