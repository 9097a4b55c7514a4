package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// permissionGUI is a GUI whose registry makes worktrees (full auto needs
// one), with a profile offering every mode, one offering ask and edits
// only, a git repository and a folder whose agents get no worktree.
func permissionGUI(t *testing.T) (g *gui, gitRepo, plainRepo string) {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh")
	ctx := context.Background()
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "first"}} {
		if _, err := gitcmd.Run(ctx, repo, args...); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := &fakeBackend{endpoint: testEndpoint, token: testToken}
	core := &fakeCore{Backend: b}
	core.agents = supervisor.New(supervisor.Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Exited: func(id string, e supervisor.Exit) { core.reg.AgentExited(id, e) }})
	// Confined, as the app's agents are: full auto runs only so.
	core.reg = mcpserver.New(db, mcpserver.Options{Env: envOf{b}, Agents: core.agents, Worktrees: filepath.Join(dir, "worktrees"), Sandbox: &mcpserver.Sandbox{}})
	t.Cleanup(func() {
		core.agents.Close(ctx)
		core.reg.WaitTidy(ctx)
	})
	log, _ := newTestLogger()
	g = &gui{app: test.NewTempApp(t), core: core, log: log, quit: func() {}}
	t.Cleanup(func() {
		if g.sessions != nil {
			g.sessions.win.Close()
		}
	})
	modes := map[profile.Permission][]string{profile.PermissionAsk: {"ask"}, profile.PermissionEdits: {"edits"}, profile.PermissionAuto: {"auto"}}
	for _, p := range []profile.Profile{
		{ID: "modes", Name: "Modes", Command: "/bin/sh", Args: []string{"-c", "sleep 60"}, Prompt: profile.PromptNone, Permissions: modes},
		{ID: "editor", Name: "Editor", Command: "/bin/sh", Args: []string{"-c", "sleep 60"}, Prompt: profile.PromptNone,
			Permissions: map[profile.Permission][]string{profile.PermissionAsk: nil, profile.PermissionEdits: {"edits"}}},
	} {
		if _, err := invoke(g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: p}); err != nil {
			t.Fatal(err)
		}
	}
	gr, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repo, Name: "git"})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(g, mcpserver.MethodRepositoryConfigure, mcpserver.RepositoryConfigureArgs{RepositoryID: pr.Repository.ID,
		RepositorySettings: store.RepositorySettings{Isolation: store.IsolationNone}}); err != nil {
		t.Fatal(err)
	}
	return g, gr.Repository.ID, pr.Repository.ID
}

// checked is the label of the checked items of m.
func checked(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.Checked {
			out = append(out, it.Label)
		}
	}
	return out
}

// The permission choice at the foot of Start agent: ask at first, a pick
// remembered and the menu laid out again for it; in full auto, profiles
// without it and repositories without worktrees are greyed, and the first
// start in a repository asks the person once.
func TestTrayPermission(t *testing.T) {
	g, gitID, _ := permissionGUI(t)
	menu := g.trayMenu(g.menuModel())
	agents := item(t, menu, labelStartAgent).ChildMenu
	got := labels(agents)
	if foot := got[len(got)-4:]; !slices.Equal(foot, []string{"---", labelPermissionAsk, labelPermissionEdits, labelPermissionAuto}) {
		t.Fatalf("Start agent ends with %q", foot)
	}
	if c := checked(agents); !slices.Equal(c, []string{labelPermissionAsk}) {
		t.Fatalf("checked at first: %q", c)
	}
	if it := item(t, agents, "Editor"); it.Disabled {
		t.Error("Editor offers ask, yet is greyed in ask")
	}

	// Two picks on the menu the tray shows: each lays out that same menu.
	item(t, agents, labelPermissionEdits).Action()
	if c := checked(item(t, menu, labelStartAgent).ChildMenu); !slices.Equal(c, []string{labelPermissionEdits}) {
		t.Fatalf("checked after picking edits: %q", c)
	}
	agents = item(t, menu, labelStartAgent).ChildMenu
	item(t, agents, labelPermissionAuto).Action()
	if p := g.startPermission(); p != profile.PermissionAuto {
		t.Fatalf("remembered %q", p)
	}
	// The same menu, laid out again.
	agents = item(t, menu, labelStartAgent).ChildMenu
	if c := checked(agents); !slices.Equal(c, []string{labelPermissionAuto}) {
		t.Fatalf("checked after picking full auto: %q", c)
	}
	if it := item(t, agents, "Editor (no Full auto mode)"); !it.Disabled || it.ChildMenu != nil {
		t.Errorf("a profile without full auto: %+v", it)
	}
	if it := item(t, agents, "Shell"); it.Disabled {
		t.Error("the shell, which has no modes, is greyed in full auto")
	}
	modes := item(t, agents, "Modes").ChildMenu
	var gitItem *fyne.MenuItem
	for _, it := range modes.Items {
		switch {
		case strings.HasPrefix(it.Label, "plain"):
			if !it.Disabled || !strings.HasSuffix(it.Label, labelNoWorktree) {
				t.Errorf("a repository without worktrees in full auto: %+v", it)
			}
		case strings.HasPrefix(it.Label, "git"):
			gitItem = it
		}
	}
	if gitItem == nil || gitItem.Disabled {
		t.Fatalf("the git repository in full auto: %+v", gitItem)
	}

	// Not confirmed: the Sessions window asks, and nothing starts yet.
	onUI(gitItem.Action)
	if g.sessions == nil {
		t.Fatal("no window asks to confirm full auto")
	}
	if n := len(g.core.Agents().List()); n != 0 {
		t.Fatalf("%d agents started before the confirmation", n)
	}
	onUI(func() { test.Tap(dialogButton(t, g.sessions.win, labelConfirmFullAuto)) })
	waitUntil(t, "agent in full auto", func() bool { return len(g.core.Agents().List()) == 1 })
	if a := g.core.Agents().List()[0]; a.Permission != profile.PermissionAuto || a.Profile != "modes" {
		t.Errorf("started %+v", a)
	}
	repos, err := invoke(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range repos.Repositories {
		if r.ID == gitID && (r.FullAuto == nil || r.FullAuto.By != string(mcpserver.TransportGUI)) {
			t.Errorf("the confirmation recorded: %+v", r.FullAuto)
		}
	}

	// Confirmed: the next start in full auto asks nothing.
	m := g.menuModel()
	onUI(g.sessions.win.Close)
	menu = g.trayMenu(m)
	for _, it := range item(t, item(t, menu, labelStartAgent).ChildMenu, "Modes").ChildMenu.Items {
		if strings.HasPrefix(it.Label, "git") {
			onUI(it.Action)
		}
	}
	waitUntil(t, "a second agent in full auto", func() bool { return len(g.core.Agents().List()) == 2 })
	if g.sessions != nil && g.sessions.win.Canvas().Overlays().Top() != nil {
		t.Error("full auto asked again in a confirmed repository")
	}
}

// The Sessions window says each supervised session's mode.
func TestSessionsShowPermission(t *testing.T) {
	g, gitID, _ := permissionGUI(t)
	out, err := invoke(g, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "modes", RepositoryID: gitID, Permission: profile.PermissionEdits})
	if err != nil {
		t.Fatal(err)
	}
	g.showSessions(out.SessionID)
	if s := g.sessions.status.Text; !strings.Contains(s, "edits allowed") {
		t.Errorf("status line %q", s)
	}
}

// What each kind of profile starts in from the tray, and why it cannot.
func TestModeFor(t *testing.T) {
	t.Setenv("IS_SANDBOX", "")
	all := map[profile.Permission][]string{profile.PermissionAsk: nil, profile.PermissionEdits: nil, profile.PermissionAuto: {"--yolo"}}
	bypass := map[profile.Permission][]string{profile.PermissionAsk: nil, profile.PermissionAuto: {"--permission-mode", "bypassPermissions"}}
	asRoot := ""
	if os.Geteuid() == 0 {
		asRoot = " (no Full auto as root)"
	}
	tests := []struct {
		perms  map[profile.Permission][]string
		chosen profile.Permission
		mode   profile.Permission
		why    string
	}{
		{nil, profile.PermissionAuto, profile.PermissionAsk, ""}, // a shell: ask, whatever is chosen
		{nil, profile.PermissionEdits, profile.PermissionAsk, ""},
		{all, profile.PermissionEdits, profile.PermissionEdits, ""},
		{all, profile.PermissionAuto, profile.PermissionAuto, ""},
		{bypass, profile.PermissionEdits, profile.PermissionEdits, " (no Edits mode)"},
		{bypass, profile.PermissionAuto, profile.PermissionAuto, asRoot},
	}
	for i, tt := range tests {
		p := supervisor.ProfileInfo{Profile: profile.Profile{ID: "p", Permissions: tt.perms}}
		mode, why := modeFor(p, tt.chosen)
		if mode != tt.mode || why != tt.why {
			t.Errorf("%d: modeFor(%v, %s) = %s, %q; want %s, %q", i, tt.perms, tt.chosen, mode, why, tt.mode, tt.why)
		}
	}
}
