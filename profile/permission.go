package profile

import "slices"

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
		return invalid("permission must be %q, %q or %q, not %q", PermissionAsk, PermissionEdits, PermissionAuto, shortText(string(p)))
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
