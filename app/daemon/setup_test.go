package daemon

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// setupRepo is a git repository with an ignored .env that .worktreeinclude
// names, and a committed executable .switchboard/setup.
func setupRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	files := map[string]string{
		".gitignore":         ".env\n",
		".worktreeinclude":   ".env\n",
		".switchboard/setup": "#!/bin/sh\necho \"setup-file-ran port=$SWITCHBOARD_PORT\"\ntouch setup-done\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", ".gitignore", ".worktreeinclude", ".switchboard/setup")
	git(t, dir, "commit", "-q", "-m", "setup")
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=local\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An agent in a worktree starts after its repository's setup ran there,
// with the .worktreeinclude files copied in and a port block of its own,
// unique among live sessions and free; a port in use is passed over. A
// setup that fails ends the session with its reason, and the worktree
// stays.
func TestSessionSetupIncludeAndPort(t *testing.T) {
	repoDir := setupRepo(t)
	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	out, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir})
	if err != nil {
		t.Fatal(err)
	}
	repo := out.Repository
	session := func(id string) store.Session {
		t.Helper()
		var s store.Session
		d.db.View(ctx, func(tx *store.Tx) error { s, _ = tx.Session(id); return nil })
		return s
	}
	startShell := func() mcpserver.AgentStarted {
		t.Helper()
		got, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{
			Profile: "shell", RepositoryID: repo.ID,
			Prompt: `test -f setup-done && echo "agent-port=$SWITCHBOARD_PORT env=$(cat .env)"`})
		if err != nil {
			t.Fatalf("agent.start: %v", err)
		}
		return got
	}
	screenShows := func(id string, want ...string) {
		t.Helper()
		s, ok := d.Agents().Get(id)
		if !ok {
			t.Fatalf("no agent %s", id)
		}
		waitFor(t, func() bool {
			text := s.Terminal().Text()
			for _, w := range want {
				if !strings.Contains(text, w) {
					return false
				}
			}
			return true
		})
	}

	// Hold the lowest block no live session holds: the next start must
	// pass it over.
	var busy net.Listener
	for p := store.FirstPort; busy == nil && p < store.FirstPort+100*store.PortBlock; p += store.PortBlock {
		busy, _ = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	}
	if busy == nil {
		t.Fatal("no port to hold")
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port

	first, second := startShell(), startShell()
	for _, st := range []mcpserver.AgentStarted{first, second} {
		if st.Workspace == nil || st.Setup != ".switchboard/setup" || st.Port < store.FirstPort || (st.Port-store.FirstPort)%store.PortBlock != 0 {
			t.Fatalf("agent.start = %+v", st)
		}
		if st.Port == busyPort {
			t.Errorf("session %s was given port %d, which is in use", st.SessionID, st.Port)
		}
		if got := session(st.SessionID).Port; got != st.Port {
			t.Errorf("the session records port %d, agent.start said %d", got, st.Port)
		}
		port := strconv.Itoa(st.Port)
		screenShows(st.SessionID, "[switchboard] setup: .switchboard/setup", "setup-file-ran port="+port, "agent-port="+port+" env=SECRET=local")
		fi, err := os.Stat(filepath.Join(st.Workspace.Path, ".env"))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf(".env in the worktree: %v, %v", fi, err)
		}
	}
	if first.Port == second.Port {
		t.Errorf("two live sessions share port %d", first.Port)
	}
	res, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodResourceSession, mcpserver.SessionArg{SessionID: first.SessionID})
	if err != nil || res.Session.Port != first.Port {
		t.Errorf("the session resource: port %d, %v; want %d", res.Session.Port, err, first.Port)
	}

	// The repository's own command replaces the file; it fails.
	if _, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryConfigure,
		mcpserver.RepositoryConfigureArgs{RepositoryID: repo.ID, RepositorySettings: store.RepositorySettings{Setup: "echo setup-broke >&2; exit 4"}}); err != nil {
		t.Fatal(err)
	}
	failed := startShell()
	if failed.Setup != "echo setup-broke >&2; exit 4" {
		t.Errorf("agent.start names setup %q", failed.Setup)
	}
	var ended store.Session
	waitFor(t, func() bool { ended = session(failed.SessionID); return !ended.State.Live() })
	if ended.EndReason != "setup failed: exit status 4" || ended.ExitCode == nil || *ended.ExitCode != 4 {
		t.Errorf("the session ended with %q, code %v", ended.EndReason, ended.ExitCode)
	}
	if _, err := os.Stat(failed.Workspace.Path); err != nil {
		t.Errorf("the worktree of a failed setup is gone: %v", err)
	}
	s, _ := d.Agents().Get(failed.SessionID)
	b, err := os.ReadFile(s.Info().Recording)
	if err != nil || !strings.Contains(string(b), "setup-broke") {
		t.Errorf("the recording lacks the setup's output: %v", err)
	}
	if _, err := os.Stat(filepath.Join(failed.Workspace.Path, "setup-done")); err == nil {
		t.Error("the setup file ran although the repository names a command")
	}
}

// At start the daemon forgets its worktrees whose folders are gone, and
// only those: the person's own worktree elsewhere, gone too, stays known.
func TestStartPrunesLostWorktrees(t *testing.T) {
	repoDir := t.TempDir()
	git(t, repoDir, "init", "-q", "-b", "main")
	git(t, repoDir, "commit", "-q", "--allow-empty", "-m", "first")
	paths := newPaths(t)
	d := start(t, Config{Paths: paths, Listen: mcpserver.ListenAddr{Off: true}, Keyring: keyring.NewMemory()})
	out, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir})
	if err != nil {
		t.Fatal(err)
	}
	d.stop()

	ours := filepath.Join(paths.Worktrees(), out.Repository.ID, "ses_gone")
	theirs := filepath.Join(t.TempDir(), "person-worktree")
	for i, p := range []string{ours, theirs} {
		git(t, repoDir, "worktree", "add", "-q", "-b", fmt.Sprintf("b%d", i), p)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	start(t, Config{Paths: paths, Listen: mcpserver.ListenAddr{Off: true}, Keyring: keyring.NewMemory()})
	waitFor(t, func() bool { return !strings.Contains(git(t, repoDir, "worktree", "list"), "ses_gone") })
	if !strings.Contains(git(t, repoDir, "worktree", "list"), "person-worktree") {
		t.Error("the person's own worktree was forgotten")
	}
}
