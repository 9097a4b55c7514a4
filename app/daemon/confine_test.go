package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// escapeScript is what a hostile agent tries from inside its session: each
// line prints ESCAPED-<what> when the attempt works, and the lines that
// must work print OK-<what>. The paths come from the test (sprintf).
const escapeScript = `
cat %[1]q >/dev/null 2>&1 && echo ESCAPED-other-token
cat "$HOME/.ssh/id_ed25519" >/dev/null 2>&1 && echo ESCAPED-ssh
cat %[2]q >/dev/null 2>&1 && echo ESCAPED-state-db
{ echo x >%[3]q; } 2>/dev/null && echo ESCAPED-checkout
{ echo x >%[4]q; } 2>/dev/null && echo ESCAPED-other-worktree
{ echo 'touch /tmp/pwned' >%[5]q; } 2>/dev/null && echo ESCAPED-hook
git config --file %[6]q core.fsmonitor 'touch /tmp/pwned' 2>/dev/null && echo ESCAPED-fsmonitor
git update-ref refs/heads/main HEAD 2>/dev/null && echo ESCAPED-main
git update-ref %[9]q HEAD 2>/dev/null && echo ESCAPED-other-branch
git branch --force %[10]q HEAD 2>/dev/null && echo ESCAPED-new-branch
kill -0 %[7]d 2>/dev/null && echo ESCAPED-signal-app
[ -n "$PGPASSWORD$PGHOST$DATABASE_URL" ] && echo ESCAPED-pg-env
[ -n "$SSH_AUTH_SOCK$DBUS_SESSION_BUS_ADDRESS" ] && echo ESCAPED-agent-sockets
[ -n "$SWITCHBOARD_DATABASE_URL" ] && echo ESCAPED-db-url
cat %[8]q >/dev/null 2>&1 && echo ESCAPED-hidden-by-settings
cat "$SWITCHBOARD_MCP_TOKEN_FILE" >/dev/null 2>&1 && echo OK-own-token
{ echo agent >>README; } 2>/dev/null && echo OK-worktree
git add README && git -c user.name=a -c user.email=a@b commit -qm agent 2>/dev/null && echo OK-commit
echo DONE
exec sleep 600
`

// TestAgentCannotStepAround starts a hostile agent beside another one in
// the same repository, confined by bubblewrap and then by Landlock alone
// (bubblewrap made unavailable), and checks that every escape is refused
// while its own work (its worktree, a commit, its token) still works.
func TestAgentCannotStepAround(t *testing.T) {
	probed := confine.Probe(context.Background(), "bwrap")
	for _, tt := range []struct {
		name, bwrap, level string
		skip               bool
	}{
		{"bubblewrap", "", supervisor.LevelConfined, probed.Bwrap == ""},
		{"landlock", "-", supervisor.LevelPartly, probed.Landlock == 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip {
				t.Skip("not available here:", probed.BwrapWhy)
			}
			// Everything outside /tmp: bubblewrap gives the agent a /tmp
			// of its own, and Landlock leaves the shared one writable,
			// so neither would test the rules on the person's folders.
			base, err := os.MkdirTemp("/var/tmp", "sbconfine-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			t.Setenv("TMPDIR", base)
			home := t.TempDir()
			if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, home, ".ssh/id_ed25519", "private key\n")
			t.Setenv("HOME", home)
			t.Setenv("SHELL", "/bin/sh")
			t.Setenv("PGPASSWORD", "team secret")
			t.Setenv("PGHOST", "db.internal")
			t.Setenv("DATABASE_URL", "postgres://u:p@db/x")
			t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-test/agent.1")
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-test")
			paths := newPaths(t)
			d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory(), Bwrap: tt.bwrap})
			reg := d.Registry()
			repoDir := personRepo(t, map[string]string{"README": "a project\n"})
			repo := registerRepo(t, reg, repoDir)
			mainBefore := git(t, repoDir, "rev-parse", "main")
			// A folder of the person's own, hidden in Settings.
			secrets := t.TempDir()
			writeFile(t, secrets, "notes.txt", "private\n")
			d.gui("sandbox.put", mcpserver.SandboxSettings{Hidden: []string{secrets}})

			other := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
			script := fmt.Sprintf(escapeScript,
				filepath.Join(paths.Runtime, "sessions", other.SessionID+".token"),
				paths.DB(), filepath.Join(repoDir, "README"), filepath.Join(other.Workspace.Path, "README"),
				filepath.Join(repoDir, ".git/hooks/post-checkout"), filepath.Join(repoDir, ".git/config"), os.Getpid(),
				filepath.Join(secrets, "notes.txt"), "refs/heads/"+other.Workspace.Branch, "switchboard/planted")
			d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "hostile", Name: "Hostile",
				Command: "/bin/sh", Args: []string{"-c", script}, Prompt: profile.PromptNone}})
			started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "hostile", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
			s, ok := reg.Agents().Get(started.SessionID)
			if !ok {
				t.Fatal("the hostile agent is not running")
			}
			if c := s.Info().Confinement; c.Level != tt.level {
				t.Errorf("confinement %s, want %s", c, tt.level)
			}
			var screen string
			waitFor(t, func() bool { screen = s.Terminal().Text(); return strings.Contains(screen, "DONE") })
			var got []string
			for _, f := range strings.Fields(screen) {
				if strings.HasPrefix(f, "ESCAPED-") || strings.HasPrefix(f, "OK-") {
					got = append(got, f)
				}
			}
			if want := []string{"OK-own-token", "OK-worktree", "OK-commit"}; !slices.Equal(got, want) {
				t.Errorf("the agent's attempts gave %q, want only %q; its screen:\n%s", got, want, screen)
			}
			if git(t, repoDir, "rev-parse", "main") != mainBefore {
				t.Error("the agent moved the person's main")
			}
			if git(t, repoDir, "rev-parse", other.Workspace.Branch) != mainBefore {
				t.Error("the agent moved the other agent's branch")
			}
			if b, _ := os.ReadFile(filepath.Join(repoDir, "README")); string(b) != "a project\n" {
				t.Errorf("the person's checkout changed: %q", b)
			}
		})
	}
}

// A repository whose agents a person let run unconfined starts them so,
// saying why, and never in full auto; taking the choice back confines the
// next one again.
func TestUnconfinedRepository(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	unconfine := func(on bool) {
		t.Helper()
		res := d.gui("repository.unconfined", mcpserver.RepositoryUnconfinedArgs{RepositoryID: repo.ID, Unconfined: on})
		if got := res.Value.(mcpserver.RepositoryResult).Repository.Unconfined != nil; got != on {
			t.Fatalf("repository.unconfined %v: the repository's choice is %v", on, got)
		}
	}
	startShell := func() supervisor.Confinement {
		t.Helper()
		started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
		if started.Confinement == nil {
			t.Fatal("agent.start says nothing of the agent's confinement")
		}
		return *started.Confinement
	}

	unconfine(true)
	if c := startShell(); c.Level != supervisor.LevelNone || !strings.Contains(c.Why, "as chosen through gui") {
		t.Errorf("an agent of an unconfined repository runs %s", c)
	}
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "modes", Name: "Modes", Command: "/bin/sh", Args: []string{"-c", "sleep 60"},
		Prompt: profile.PromptNone, Permissions: map[profile.Permission][]string{profile.PermissionAsk: nil, profile.PermissionAuto: {"--auto"}}}})
	_, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: "modes", RepositoryID: repo.ID, Permission: profile.PermissionAuto, ConfirmFullAuto: true})
	if err == nil || !strings.Contains(err.Error(), "full auto runs only confined") {
		t.Errorf("full auto in an unconfined repository: %v, want it refused", err)
	}
	unconfine(false)
	if c := startShell(); c.Level == supervisor.LevelNone {
		t.Errorf("after the choice was taken back the agent runs %s", c)
	}
}

// A session whose token a person revoked while it ran is resumed only once
// they confirm it: the resume gives the agent a new token.
func TestResumeOfARevokedSessionAsks(t *testing.T) {
	bin := buildStandin(t)
	ctx := context.Background()
	cfg := Config{Paths: newPaths(t), Keyring: keyring.NewMemory()}
	d := start(t, cfg)
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"a.txt": "one\n"}))
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{
		ID: "standin", Name: "Stand-in", Command: bin, Args: []string{"agent", "{prompt}"}, Prompt: profile.PromptArgument,
		Conversation: &profile.Conversation{StartArgs: []string{"--session-id={conversation_id}"}, ResumeArgs: []string{"--resume={conversation_id}"}},
	}})
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "standin", RepositoryID: repo.ID, Prompt: "begin"}).Value.(mcpserver.AgentStarted)
	first := sessionOf(t, d, started.SessionID)
	d.gui("token.revoke", mcpserver.KeyIDArg{KeyID: first.TokenKeyID})
	d.stop() // the quit ends the session with the app: resumable
	d = start(t, cfg)
	mustOK(t, d.Registry().WaitTidy(ctx))

	resume := func(confirm bool) error {
		_, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentResume,
			mcpserver.AgentResumeArgs{SessionID: first.ID, ConfirmRevoked: confirm})
		return err
	}
	if err := resume(false); store.CodeOf(err) != store.CodeTokenRevoked || !strings.Contains(err.Error(), "revoked by hand") {
		t.Fatalf("resuming a session whose token was revoked: %v, want token_revoked saying so", err)
	}
	if err := resume(true); err != nil {
		t.Fatalf("resuming it once confirmed: %v", err)
	}
	if again := sessionOf(t, d, first.ID); again.State != store.SessionRunning || again.TokenKeyID == first.TokenKeyID {
		t.Errorf("the resumed session: %+v", again)
	}
}

// Quitting with three agents that ignore the interrupt, the terminate and
// the hangup, each with a child that left its session, takes at most 10 s
// and leaves no process of theirs behind.
func TestQuitEndsEveryAgent(t *testing.T) {
	paths := newPaths(t)
	d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory()})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	mark := fmt.Sprintf("50%d", os.Getpid())
	script := "trap '' INT TERM HUP; setsid sleep " + mark + ".1 & (sleep " + mark + ".2 &); echo ready; while :; do sleep 1; done"
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "stubborn", Name: "Stubborn", Command: "/bin/sh",
		Args: []string{"-c", script}, Prompt: profile.PromptNone}})
	for range 3 {
		started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "stubborn", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
		s, _ := d.Registry().Agents().Get(started.SessionID)
		waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "ready") })
	}
	var pids []int
	waitFor(t, func() bool { pids = procsWith(mark); return len(pids) == 6 })
	begin := time.Now()
	d.stop()
	took := time.Since(begin)
	if took > 10*time.Second {
		t.Errorf("quitting took %v, want at most 10 s", took)
	}
	t.Logf("figure: quit with three stubborn agents took %v", took)
	waitFor(t, func() bool { return len(procsWith(mark)) == 0 })
}

// procsWith returns the pids of the running sleeps (not zombies) whose
// argument starts with mark.
func procsWith(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(cmd), "sleep\x00"+mark) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// The control socket answers the person and refuses an agent's process,
// even unconfined (its repository's choice) and even one that left the
// agent's session with setsid: its process set still holds it.
func TestControlSocketRefusesAgents(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	paths := newPaths(t)
	d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory()})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	d.gui("repository.unconfined", mcpserver.RepositoryUnconfinedArgs{RepositoryID: repo.ID, Unconfined: true})
	d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "caller", Name: "Caller", Command: "/bin/sh",
		Args: []string{"-c", "setsid " + self + "; echo DONE; sleep 600"}, Prompt: profile.PromptNone,
		Env: []string{controlClientEnv + "=" + paths.ControlSocket()}}})
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "caller", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
	if started.Confinement == nil || started.Confinement.Level != supervisor.LevelNone {
		t.Fatalf("the caller runs %+v, want not confined", started.Confinement)
	}
	s, _ := d.Registry().Agents().Get(started.SessionID)
	var screen string
	waitFor(t, func() bool { screen = s.Terminal().Text(); return strings.Contains(screen, "DONE") })
	// The refusal is one long line, wrapped on the agent's screen.
	if joined := strings.ReplaceAll(screen, "\n", ""); !strings.Contains(joined, "CONTROL-REFUSED") || !strings.Contains(joined, "inside agent session "+started.SessionID) {
		t.Errorf("an agent's setsid child called the control socket; the screen shows:\n%s", screen)
	}
	// The person, from this test's own process, is answered.
	if _, err := control.NewClient(paths.ControlSocket()).Hello(context.Background()); err != nil {
		t.Errorf("the person's own call: %v", err)
	}
}
