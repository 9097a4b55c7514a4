package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// goldenSettingsData is three repositories, the built-in profiles (two
// installed, one edited) and one of the person's own, and tokens of each
// kind: the client token, a live session's, a CI token that expires and
// one scoped to a repository.
func goldenSettingsData() *goldenData {
	d := &goldenData{repos: goldenRepos()}
	// infra's agents run unconfined, by its owner's choice: a warning.
	d.repos[2].Unconfined = &store.Confirmation{By: "rpc", At: goldenAgo(26 * time.Hour)}
	d.sandbox = mcpserver.SandboxSettings{Hidden: []string{"/home/ada/private", "/home/ada/.config/op"}, RecordingCapMiB: 512}
	builtins := supervisor.Builtins()
	info := func(p profile.Profile, path string) supervisor.ProfileInfo {
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
		{Profile: profile.Profile{ID: "review-bot", Name: "Review bot", Command: "/home/ada/bin/review-bot",
			Args: []string{"--endpoint", "{endpoint}"}, Prompt: profile.PromptTyped}, Available: true, Path: "/home/ada/bin/review-bot"},
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
		}{{"repositories", 0}, {"profiles", 2}, {"tokens", 3}, {"sandbox", 5}} {
			tabs.SelectIndex(tab.index)
			test.AssertImageMatches(t, "settings/"+tab.name+"-"+name+".png", w.win.Canvas().Capture())
		}
	})
}

// The instance ids the Team tab's golden shows.
const (
	goldenInstSelf    = "inst_3c7a9e10b4d25f68"
	goldenInstBuild   = "inst_8e21f0c4a7b39d56"
	goldenInstSilent  = "inst_b04d6a2e91c7f385"
	goldenInstLost    = "inst_5f9c3e7a1d08b264"
	goldenInstStopped = "inst_e7a2b5d09c4f1368"
)

// goldenTeam is team mode with five instances, one in each state (two
// running, this one among them), and a shared queue with packets in every
// state. The database URL comes as team.status gives it: its password
// replaced.
func goldenTeam() mcpserver.TeamStatus {
	in := func(id, host, version string, pid int, started, seen time.Duration, state string, sessions int) mcpserver.TeamInstance {
		return mcpserver.TeamInstance{Instance: store.Instance{ID: id, Host: host, PID: pid, Version: version,
			StartedAt: goldenAgo(started), SeenAt: goldenAgo(seen)}, State: state, Sessions: sessions}
	}
	self := in(goldenInstSelf, "ada-laptop", "0.9.1", 48121, 3*time.Hour, 3*time.Second, "running", 2)
	self.Self = true
	lost := in(goldenInstLost, "ci-runner-3", "0.8.4", 2210, 30*time.Hour, 2*time.Hour+5*time.Minute, "lost", 0)
	lost.LostAt, lost.LostBy = goldenAgoPtr(2*time.Hour+4*time.Minute), goldenInstBuild
	stopped := in(goldenInstStopped, "carol-mac", "0.9.1", 7731, 50*time.Hour, 26*time.Hour, "stopped", 0)
	stopped.StoppedAt = goldenAgoPtr(26 * time.Hour)
	return mcpserver.TeamStatus{Team: true, Database: "postgres://ada:xxxxx@db.internal.example:5432/switchboard?sslmode=require",
		Instance: goldenInstSelf,
		Instances: []mcpserver.TeamInstance{
			self,
			in(goldenInstBuild, "build-box", "0.9.1", 9120, 6*24*time.Hour, 4*time.Second, "running", 5),
			in(goldenInstSilent, "bob-desktop", "0.9.0", 15002, 5*time.Hour, 41*time.Second, "silent", 1),
			lost, stopped,
		},
		Queue: map[store.PacketState]int{store.PacketQueued: 4, store.PacketClaimed: 1, store.PacketInProgress: 3,
			store.PacketInReview: 2, store.PacketDone: 57, store.PacketFailed: 1, store.PacketCancelled: 2}}
}

// The Team tab, in team mode and without it.
func TestSettingsTeamGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		for _, v := range []struct {
			file string
			team mcpserver.TeamStatus
		}{
			{"team", goldenTeam()},
			{"team-off", mcpserver.TeamStatus{Database: "/home/ada/.local/share/switchboard/state.db"}},
		} {
			d := goldenSettingsData()
			d.team = v.team
			g := newGoldenGUI(t, a, d, nil)
			var w *settingsWindow
			onUI(func() {
				g.showSettings()
				w = g.settings
				w.win.Resize(fyne.NewSize(960, 620))
				w.team.now = goldenClock
				w.tabs.SelectIndex(settingsTabTeam)
			})
			waitUntil(t, "the team's status", func() bool {
				var painted string
				onUI(func() { painted = w.team.painted })
				return painted != ""
			})
			onUI(func() { test.AssertImageMatches(t, "settings/"+v.file+"-"+name+".png", w.win.Canvas().Capture()) })
			if v.team.Team {
				// The line every window shows while the database is away.
				g.health.observe(store.Deny(store.CodeStoreUnavailable, "gone"))
				onUI(func() {
					g.showStoreHealth()
					test.AssertImageMatches(t, "settings/team-store-down-"+name+".png", w.win.Canvas().Capture())
				})
			}
			onUI(func() { w.win.Close() })
		}
	})
}
