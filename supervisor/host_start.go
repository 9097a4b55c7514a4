//go:build unix

package supervisor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// HostStart says how to start an agent host.
type HostStart struct {
	// Dir is the runtime folder.
	Dir string
	// Binary is the program to run with HostArg (default: this one).
	Binary string
	// Linger is the host's wait for a launch with no agent left (0: its
	// default).
	Linger time.Duration
	// Backlog is HostConfig.Backlog (0: its default).
	Backlog int
	// Env is the host's environment (default os.Environ()), without what
	// hostEnv removes. Agents do not inherit it: each launch carries its
	// agent's.
	Env []string
}

// StartedHost is a host this process started.
type StartedHost struct {
	PID    int
	Socket string
	// Log is the file the host writes to.
	Log    string
	exited chan struct{}
}

// Exited is closed when the host has exited, if it exits while this
// process runs.
func (h *StartedHost) Exited() <-chan struct{} { return h.exited }

// hostLogName is the hosts' shared log in the hosts folder: each line
// names its host's pid.
const hostLogName = "agent-host.log"

// StartHost starts an agent host and returns once it listens: it writes
// its socket's path to a pipe then (no polling for the socket). The host
// is detached: a session of its own without a terminal, standard input
// from /dev/null, output to the hosts' log, so that neither the app's
// death nor a terminal's hangup reaches it.
func StartHost(ctx context.Context, s HostStart) (*StartedHost, error) {
	bin := s.Binary
	if bin == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("start the agent host: %w", err)
		}
		bin = self
	}
	dir := hostsDir(s.Dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("start the agent host: %w", err)
	}
	logPath := filepath.Join(dir, hostLogName)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start the agent host: %w", err)
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the agent host: %w", err)
	}
	defer pr.Close()
	args := []string{HostArg, "--dir", s.Dir, "--ready-fd", "3"}
	if s.Linger > 0 {
		args = append(args, "--linger", s.Linger.String())
	}
	if s.Backlog > 0 {
		args = append(args, "--backlog", strconv.Itoa(s.Backlog))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = hostEnv(s.Env)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return nil, fmt.Errorf("start the agent host: %w", err)
	}
	h := &StartedHost{PID: cmd.Process.Pid, Log: logPath, exited: make(chan struct{})}
	// Reaped while this process lives; after it, init reaps the host.
	go func() {
		cmd.Wait()
		close(h.exited)
	}()
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(pr).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		sock, ok := strings.CutPrefix(l, hostReady+" ")
		if !ok {
			// Exited (or wrote its error) before listening.
			return nil, fmt.Errorf("the agent host did not start: %q (see %s)", l, logPath)
		}
		h.Socket = sock
		return h, nil
	case <-ctx.Done():
		cmd.Process.Kill()
		return nil, fmt.Errorf("start the agent host: %w", ctx.Err())
	}
}

// hostEnv is the environment a host runs with: the app's, without the
// app's own secrets (its SWITCHBOARD_* variables, the team database's
// address and password). The host needs none of them.
func hostEnv(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SWITCHBOARD_") || strings.HasPrefix(name, "PG") || name == "DATABASE_URL" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// HostSocket is one host found in the runtime folder.
type HostSocket struct {
	Path     string
	PID      int
	Protocol int
}

// FindHosts lists the hosts whose sockets are in the runtime folder and
// answer. A socket nobody answers on is a dead host's, and is removed: a
// Unix socket stays in the folder after its listener is gone (a killed
// host never closes it). One that answers is never removed, whatever its
// version.
func FindHosts(ctx context.Context, runtimeDir string) ([]HostSocket, error) {
	dir := hostsDir(runtimeDir)
	names, err := filepath.Glob(filepath.Join(dir, "*.sock"))
	if err != nil {
		return nil, fmt.Errorf("find agent hosts: %w", err)
	}
	var out []HostSocket
	for _, path := range names {
		hs, ok := parseHostSocket(path)
		if !ok {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		var d net.Dialer
		nc, err := d.DialContext(dctx, "unix", path)
		cancel()
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
				os.Remove(path)
			}
			continue
		}
		nc.Close()
		out = append(out, hs)
	}
	return out, nil
}

// parseHostSocket reads a socket name HostSocketPath made: PID.vN.sock.
func parseHostSocket(path string) (HostSocket, bool) {
	name := strings.TrimSuffix(filepath.Base(path), ".sock")
	p, v, ok := strings.Cut(name, ".v")
	if !ok {
		return HostSocket{}, false
	}
	pid, err1 := strconv.Atoi(p)
	ver, err2 := strconv.Atoi(v)
	if err1 != nil || err2 != nil || pid <= 0 {
		return HostSocket{}, false
	}
	return HostSocket{Path: path, PID: pid, Protocol: ver}, true
}
