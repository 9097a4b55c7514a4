package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// buildStandin builds the supervisor's stand-in agent.
func buildStandin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "standin")
	cmd := exec.Command("go", "build", "-o", bin, "../../supervisor/testdata/standin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build standin: %v\n%s", err, out)
	}
	return bin
}

// syncBuffer is a bytes.Buffer for a process's output read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// wrote is closed by the next Write: waitFor's signal; nil until
	// waitFor makes it. Guarded by mu.
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

// waitFor waits until the output holds want, looking again at each write,
// and reports whether it did before the test's deadline came near.
func (s *syncBuffer) waitFor(t testing.TB, want string) bool {
	end, stop := nearDeadline(t)
	defer stop()
	for {
		s.mu.Lock()
		if s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		has, wrote := strings.Contains(s.b.String(), want), s.wrote
		s.mu.Unlock()
		if has {
			return true
		}
		select {
		case <-wrote:
		case <-end:
			return false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// project makes a folder for a repository in home: a confined agent may
// write its repository's folder, and home itself never.
func project(t *testing.T, home string) string {
	t.Helper()
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The agent commands against the real app: start a shell, list it, attach
// and type into it, detach, stop it.
func TestAgentCLI(t *testing.T) {
	d := newDirs(t)
	env := d.env(false, "SHELL=/bin/sh")
	p := start(t, env, "--headless")
	waitEndpoint(t, p, d, 10*time.Second)
	repo := strings.TrimSpace(mustCLI(t, env, "repo", "add", project(t, d.home)))

	if out := mustCLI(t, env, "profile", "list"); !strings.Contains(out, "claude") || !strings.Contains(out, "shell") {
		t.Errorf("profile list:\n%s", out)
	}
	ses := strings.TrimSpace(mustCLI(t, env, "agent", "start", "shell", "--repo", repo, "--cols", "100", "--rows", "30"))
	if !strings.HasPrefix(ses, "ses_") {
		t.Fatalf("agent start printed %q", ses)
	}
	if out := mustCLI(t, env, "agent", "list"); !strings.Contains(out, ses) || !strings.Contains(out, "100x30") {
		t.Errorf("agent list:\n%s", out)
	}

	cmd := exec.Command(binPath, "agent", "attach", ses)
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("echo attached-$((6*7)) $SWITCHBOARD_SESSION_ID\r"))
	if !out.waitFor(t, "attached-42 "+ses) {
		t.Fatalf("attach never showed the command's output:\n%q", out.String())
	}
	stdin.Write([]byte{0x1d}) // Ctrl-]
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("attach exited with %v after Ctrl-]", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("attach did not detach on Ctrl-]")
	}

	stop := mustCLI(t, env, "agent", "stop", ses)
	if !strings.Contains(stop, ses+" stopped") {
		t.Errorf("agent stop printed %q", stop)
	}
	if _, errOut, code := cli(t, env, "agent", "stop", ses); code == 0 || !strings.Contains(errOut, "invalid_state") {
		t.Errorf("stopping an ended agent: exit %d, %q", code, errOut)
	}
	if _, errOut, code := cli(t, env, "agent", "start", "no-such-profile", "--repo", repo); code == 0 || !strings.Contains(errOut, "not_found") {
		t.Errorf("unknown profile: exit %d, %q", code, errOut)
	}
	p.stop()
	// The recording is there, owner-only.
	fi, err := os.Stat(filepath.Join(d.data, "recordings", ses+".cast"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("recording: %v, %v", fi, err)
	}
}

// An agent that outlives a crash of the app (it ignores the hangup its
// terminal's end sends) is stopped at the next start, its session ended as
// lost, its token revoked and its token file removed.
func TestAgentOrphanedByACrash(t *testing.T) {
	bin := buildStandin(t)
	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	waitEndpoint(t, p, d, 10*time.Second)
	repo := strings.TrimSpace(mustCLI(t, env, "repo", "add", project(t, d.home)))
	mustCLI(t, env, "profile", "add", "stubborn", "--command", bin, "--arg", "stubborn", "--prompt", "none")
	ses := strings.TrimSpace(mustCLI(t, env, "agent", "start", "stubborn", "--repo", repo))
	var pid int
	for _, line := range strings.Split(mustCLI(t, env, "agent", "list", "--json"), "\n") {
		if strings.Contains(line, `"pid"`) {
			pid, _ = strconv.Atoi(strings.Trim(strings.TrimSpace(strings.SplitN(line, ":", 2)[1]), ","))
		}
	}
	if pid == 0 {
		t.Fatal("no pid in agent list --json")
	}
	// It says so once it ignores the hangup and the stop signals.
	waitTerminal(t, d, ses, "ignoring signals")

	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(10 * time.Second)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the stand-in died with the app (%v); the test needs an orphan", err)
	}
	tokenFile := filepath.Join(d.run, "sessions", ses+".token")
	if _, err := os.Stat(tokenFile); err != nil {
		t.Fatalf("the crash should have left the token file: %v", err)
	}

	p2 := start(t, env, "--headless")
	waitEndpoint(t, p2, d, 20*time.Second)
	waitUntil(t, "the orphaned agent "+strconv.Itoa(pid)+" to be stopped by the restart", func() bool { return syscall.Kill(pid, 0) != nil })
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file of the lost session still there: %v", err)
	}
	p2.stop()

	db, err := store.Open(filepath.Join(d.data, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(context.Background(), func(tx *store.Tx) error {
		s, err := tx.Session(ses)
		if err != nil {
			t.Fatal(err)
		}
		tok, _, _ := tx.Token(s.TokenKeyID)
		if s.State != store.SessionLost || !strings.Contains(s.EndReason, "orphaned agent was stopped") || tok.RevokedAt == nil {
			t.Errorf("session %s (%q), token revoked at %v", s.State, s.EndReason, tok.RevokedAt)
		}
		return nil
	})
}
