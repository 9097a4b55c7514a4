package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
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
kill -0 %[7]d 2>/dev/null && echo ESCAPED-signal-app
[ -n "$PGPASSWORD$PGHOST$DATABASE_URL" ] && echo ESCAPED-pg-env
[ -n "$SWITCHBOARD_DATABASE_URL" ] && echo ESCAPED-db-url
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
			paths := newPaths(t)
			d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory(), Bwrap: tt.bwrap})
			reg := d.Registry()
			repoDir := personRepo(t, map[string]string{"README": "a project\n"})
			repo := registerRepo(t, reg, repoDir)
			mainBefore := git(t, repoDir, "rev-parse", "main")

			other := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
			script := fmt.Sprintf(escapeScript,
				filepath.Join(paths.Runtime, "sessions", other.SessionID+".token"),
				paths.DB(), filepath.Join(repoDir, "README"), filepath.Join(other.Workspace.Path, "README"),
				filepath.Join(repoDir, ".git/hooks/post-checkout"), filepath.Join(repoDir, ".git/config"), os.Getpid())
			d.gui("profile.put", mcpserver.ProfilePutArgs{Profile: store.Profile{ID: "hostile", Name: "Hostile",
				Command: "/bin/sh", Args: []string{"-c", script}, Prompt: store.PromptNone}})
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
			if b, _ := os.ReadFile(filepath.Join(repoDir, "README")); string(b) != "a project\n" {
				t.Errorf("the person's checkout changed: %q", b)
			}
		})
	}
}
