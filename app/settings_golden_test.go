package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// goldenSettingsData is three repositories, the built-in profiles (two
// installed, one edited) and one of the person's own, and tokens of each
// kind: the client token, a live session's, a CI token that expires and
// one scoped to a repository.
func goldenSettingsData() *goldenData {
	d := &goldenData{repos: goldenRepos()}
	builtins := supervisor.Builtins()
	info := func(p store.Profile, path string) supervisor.ProfileInfo {
		return supervisor.ProfileInfo{Profile: p, Builtin: true, Available: path != "", Path: path}
	}
	claude := info(builtins[0], "/home/ada/.local/bin/claude")
	claude.Edited = true
	claude.Args = append(claude.Args, "--model", "opus")
	d.profiles = []supervisor.ProfileInfo{
		claude,
		info(builtins[1], "/usr/local/bin/codex"),
		info(builtins[2], ""),
		info(builtins[3], ""),
		info(builtins[4], "/bin/bash"),
		{Profile: store.Profile{ID: "review-bot", Name: "Review bot", Command: "/home/ada/bin/review-bot",
			Args: []string{"--endpoint", "{endpoint}"}, Prompt: store.PromptTyped}, Available: true, Path: "/home/ada/bin/review-bot"},
	}
	all := []string{store.AllRepositories}
	grants := func(repos []string, caps ...store.Capability) []store.Grant {
		var out []store.Grant
		for _, c := range caps {
			out = append(out, store.Grant{Capability: c, Repositories: repos})
		}
		return out
	}
	d.tokens = mcpserver.TokenList{ClientKeyID: goldenKeyClient, Tokens: []store.Token{
		{KeyID: goldenKeyClient, Label: "client", Kind: store.KindClient, CreatedAt: goldenAgo(30 * 24 * time.Hour), LastUsedAt: goldenAgoPtr(40 * time.Second),
			Grants: grants(all, store.AgentCapabilities()...)},
		{KeyID: goldenKeyLive, Kind: store.KindSession, SessionID: goldenSesLive, CreatedAt: goldenAgo(7*time.Minute + 15*time.Second), LastUsedAt: goldenAgoPtr(15 * time.Second),
			Grants: grants([]string{goldenRepoSwitchboard}, store.CapStatusRead, store.CapWorkRead, store.CapWorkClaim, store.CapArtifactWrite, store.CapSessionReport)},
		{KeyID: goldenKeyCI, Label: "ci nightly", Kind: store.KindOperator, CreatedAt: goldenAgo(3 * 24 * time.Hour), ExpiresAt: goldenAgoPtr(-27 * 24 * time.Hour),
			Grants: grants(all, store.CapStatusRead, store.CapAuditRead)},
		{KeyID: "5d1e8a0f74c3b926", Label: "website preview bot", Kind: store.KindOperator, CreatedAt: goldenAgo(26 * time.Hour),
			Grants: grants([]string{goldenRepoWebsite}, store.CapWorkAuthor, store.CapWorkRead)},
	}}
	return d
}

// The Settings window's Repositories, Agent profiles and Tokens tabs (the
// Connection tab has its own golden, settings_test.go, and the Worktrees
// tab settings_worktrees_test.go).
func TestSettingsGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		g := newGoldenGUI(t, a, goldenSettingsData(), nil)
		g.showSettings()
		w := g.settings
		defer w.win.Close()
		w.win.Resize(fyne.NewSize(960, 620))
		tabs := w.tabs
		w.profileList.Select(0)
		for _, tab := range []struct {
			name  string
			index int
		}{{"repositories", 0}, {"profiles", 2}, {"tokens", 3}} {
			tabs.SelectIndex(tab.index)
			test.AssertImageMatches(t, "settings/"+tab.name+"-"+name+".png", w.win.Canvas().Capture())
		}
	})
}
