package app

import (
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// The permission choice at the foot of Start agent: one mode, checked,
// for every start from the tray until the person picks another. Labels are
// also what the tests tap.
const (
	labelPermissionAsk      = "Permission: Ask"
	labelPermissionEdits    = "Permission: Edits"
	labelPermissionAuto     = "Permission: Full auto"
	labelNoWorktree         = " (no worktree: no full auto)"
	titleConfirmFullAuto    = "Full auto"
	labelConfirmFullAuto    = "Allow full auto"
	prefStartPermission     = "start.permission"
	textConfirmFullAutoHead = "Agents started in full auto in "
	textConfirmFullAutoTail = " edit files and run commands with nobody asked (their CLI's own bypass or yolo mode), " +
		"each in a git worktree of its own. You are asked once for this repository; later starts in full auto go ahead."
)

// permissionLabels name the modes in the menu; modeNames in a greyed
// profile's "(no … mode)".
var (
	permissionLabels = map[profile.Permission]string{
		profile.PermissionAsk:   labelPermissionAsk,
		profile.PermissionEdits: labelPermissionEdits,
		profile.PermissionAuto:  labelPermissionAuto,
	}
	modeNames = map[profile.Permission]string{
		profile.PermissionAsk:   "Ask",
		profile.PermissionEdits: "Edits",
		profile.PermissionAuto:  "Full auto",
	}
)

// permissionText is how the Sessions window names a mode.
func permissionText(p profile.Permission) string {
	switch p.Or() {
	case profile.PermissionEdits:
		return "edits allowed"
	case profile.PermissionAuto:
		return "full auto"
	}
	return "asks before edits"
}

// startPermission is the mode the tray starts agents in, from the app's
// preferences (ask when unset or unknown).
func (g *gui) startPermission() profile.Permission {
	p := profile.Permission(g.app.Preferences().StringWithFallback(prefStartPermission, string(profile.PermissionAsk)))
	if !p.Valid() {
		return profile.PermissionAsk
	}
	return p.Or()
}

// permissionItems are the three modes, the chosen one checked. Picking one
// remembers it and rebuilds the menu (rebuild), whose profiles and
// repositories depend on it.
func (g *gui) permissionItems(rebuild func()) []*fyne.MenuItem {
	chosen := g.startPermission()
	var items []*fyne.MenuItem
	for _, p := range profile.Permissions() {
		it := fyne.NewMenuItem(permissionLabels[p], func() {
			g.app.Preferences().SetString(prefStartPermission, string(p))
			g.log.Info("tray: start permission", "permission", p)
			rebuild()
		})
		it.Checked = p == chosen
		items = append(items, it)
	}
	return items
}

// modeFor is the mode profile p starts in from the tray: the chosen one,
// or ask for a profile with no modes at all (a shell, aider), which has
// nothing else. why, when not "", is why p cannot start in it: it lacks
// the mode, or its CLI refuses the mode for this user (Claude Code's bypass
// as root).
func modeFor(p supervisor.ProfileInfo, chosen profile.Permission) (mode profile.Permission, why string) {
	if len(p.Permissions) == 0 {
		return profile.PermissionAsk, ""
	}
	if !p.Offers(chosen) {
		return chosen, " (no " + modeNames[chosen] + " mode)"
	}
	if _, err := supervisor.PermissionArgs(p.Profile, chosen, os.Geteuid()); err != nil {
		return chosen, " (no " + modeNames[chosen] + " as root)"
	}
	return chosen, ""
}

// noWorktree reports whether agents in r work in its folder, where full
// auto is not offered. A folder that is not a git repository is known only
// when the agent starts, and its start is refused then.
func noWorktree(r store.Repository) bool { return r.Isolation == store.IsolationNone }

// startFromTray starts profileID in repo in mode; full auto in a repository
// not yet confirmed asks the person first, once, in the Sessions window
// (where the new agent shows up anyway).
func (g *gui) startFromTray(profileID string, repo store.Repository, mode profile.Permission) {
	if mode != profile.PermissionAuto || repo.FullAuto != nil {
		go g.startAgent(profileID, repo.ID, mode, false)
		return
	}
	g.showSessions("")
	d := dialog.NewConfirm(titleConfirmFullAuto, textConfirmFullAutoHead+repoLabel(repo)+textConfirmFullAutoTail, func(ok bool) {
		if !ok {
			g.log.Info("tray: full auto not confirmed", "repository", repo.ID)
			return
		}
		go g.startAgent(profileID, repo.ID, mode, true)
	}, g.sessions.win)
	d.SetConfirmText(labelConfirmFullAuto)
	d.SetDismissText("Cancel")
	d.Show()
}
