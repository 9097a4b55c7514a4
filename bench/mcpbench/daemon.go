package main

// The real daemon: the switchboard binary built for this run and started
// headless in fresh folders, as a person would run it. Measured: the time
// from exec to the endpoint file (written last, when the daemon is ready)
// and to the first answered status call, on a fresh data dir and again on
// the same one; `switchboard --version` (the same binary loaded and exited,
// no daemon) is the floor beside them. The daemon then serves the status
// load like the other servers (server "switchboard-daemon", a child process
// whose CPU is read from /proc), and its resident set is read idle and
// after that load, beside the mcp-go peer's at the same points.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/store"

	"github.com/switchboard-dev/switchboard/supervisor"
)

// serverDaemon is the real switchboard binary, headless, in a child process.
const serverDaemon = "switchboard-daemon"

// daemonBinary is the switchboard binary built for this run.
type daemonBinary struct {
	path  string
	built time.Duration
}

// buildDaemon builds the repository's main package. The binary links
// Fyne's OpenGL driver, so it needs cgo even though it runs headless here;
// with a warm build cache this is mostly the link.
func buildDaemon(root, dir string) (daemonBinary, error) {
	start := time.Now()
	out := filepath.Join(dir, "switchboard")
	if err := goBuild(root, out, ".", true); err != nil {
		return daemonBinary{}, fmt.Errorf("build the switchboard binary (it needs cgo and the packages of scripts/deps.sh; -servers without %s, -daemon=false and -gobench=false skip it): %w", serverDaemon, err)
	}
	// Its sandbox helper beside it, as make build and make install lay
	// them: confined agents start through it.
	if err := goBuild(root, filepath.Join(dir, supervisor.HelperName), "./cmd/switchboard-sandbox", false); err != nil {
		return daemonBinary{}, fmt.Errorf("build the sandbox helper: %w", err)
	}
	return daemonBinary{path: out, built: time.Since(start)}, nil
}

// daemonStarts are the start measurements: per start, exec to endpoint
// file and exec to the first answered call.
type daemonStarts struct {
	version                     []time.Duration // exec to exit of `switchboard --version`
	freshReady, freshAnswer     []time.Duration // empty data dir
	restartReady, restartAnswer []time.Duration // the same data dir again
}

// daemonProc is one running headless switchboard.
type daemonProc struct {
	cmd   *exec.Cmd
	base  string // its data, runtime and home folders are under base
	token string
	url   string
	begun time.Time

	mu   sync.Mutex
	out  bytes.Buffer // stdout and stderr, guarded by mu
	done chan struct{}
	err  error // Wait's result, set before done closes
}

func (p *daemonProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *daemonProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// newDaemonBase makes a fresh folder for one daemon's data, runtime and
// home folders. It is kept short: the control socket's path must fit in
// 108 bytes.
func newDaemonBase() (string, error) { return os.MkdirTemp("", "sbd") }

// daemonEnv is a daemon's environment: its folders, its client token, and
// nothing of the caller's Switchboard settings, display or session bus, so
// it runs headless and never waits on a keyring.
func daemonEnv(base, token string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SWITCHBOARD_"), k == "HOME",
			k == "DISPLAY", k == "WAYLAND_DISPLAY", k == "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"SWITCHBOARD_DATA_DIR="+filepath.Join(base, "data"),
		"SWITCHBOARD_RUNTIME_DIR="+filepath.Join(base, "run"),
		"HOME="+filepath.Join(base, "home"),
		// The client token from the environment: the keyring is not asked.
		"SWITCHBOARD_MCP_TOKEN="+token)
}

// startDaemon runs `switchboard --headless` with its folders under base and
// returns at once.
func startDaemon(bin, base, token string) (*daemonProc, error) {
	if err := os.MkdirAll(filepath.Join(base, "home"), 0o700); err != nil {
		return nil, err
	}
	p := &daemonProc{base: base, token: token, done: make(chan struct{})}
	p.cmd = exec.Command(bin, "--headless")
	p.cmd.Env = daemonEnv(base, token)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	p.begun = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// waitReady waits for the endpoint file, which the daemon writes last, and
// returns how long after exec it appeared. It polls every millisecond.
func (p *daemonProc) waitReady(within time.Duration) (time.Duration, error) {
	path := filepath.Join(p.base, "run", "mcp-http-endpoint")
	deadline := p.begun.Add(within)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			d := time.Since(p.begun)
			p.url = strings.TrimSpace(string(b))
			return d, nil
		}
		select {
		case <-p.done:
			return 0, fmt.Errorf("switchboard exited before it was ready: %v\n%s", p.err, p.output())
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no endpoint file within %v:\n%s", within, p.output())
		}
	}
}

// firstAnswer makes status calls until one is answered and returns how
// long after exec that was.
func (p *daemonProc) firstAnswer(ctx context.Context, client *http.Client) (time.Duration, error) {
	w := newWorker(client, p.target(), 1)
	for {
		err := w.call(ctx)
		if err == nil {
			return time.Since(p.begun), nil
		}
		if time.Since(p.begun) > 15*time.Second {
			return 0, fmt.Errorf("no status answered within 15 s: %w", err)
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *daemonProc) target() *target {
	return &target{name: serverDaemon, url: p.url, auth: "Bearer " + p.token, pid: p.cmd.Process.Pid, close: p.stop}
}

// stop sends SIGTERM and waits for a clean exit, killing it after 10 s.
func (p *daemonProc) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("switchboard did not exit within 10 s of SIGTERM:\n%s", p.output())
	}
	if p.err != nil {
		return fmt.Errorf("switchboard: %v:\n%s", p.err, p.output())
	}
	return nil
}

// startDaemonTarget starts a daemon in fresh folders and waits until it
// answers, for the status load.
func startDaemonTarget(ctx context.Context, bin string) (*target, error) {
	base, err := newDaemonBase()
	if err != nil {
		return nil, err
	}
	raw, _, _ := store.NewTokenSecret()
	p, err := startDaemon(bin, base, raw)
	if err == nil {
		_, err = p.waitReady(15 * time.Second)
		if err == nil {
			client := newClient(1)
			_, err = p.firstAnswer(ctx, client)
			client.CloseIdleConnections()
		}
		if err != nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	if err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	t := p.target()
	t.close = func() error { return errors.Join(p.stop(), os.RemoveAll(base)) }
	return t, nil
}

// measureDaemonStarts starts the daemon n times in fresh folders and once
// more in the same folders after each, and runs `switchboard --version` n
// times beside them.
func measureDaemonStarts(ctx context.Context, bin string, n int) (daemonStarts, error) {
	var s daemonStarts
	client := newClient(1)
	defer client.CloseIdleConnections()
	for range n {
		base, err := newDaemonBase()
		if err != nil {
			return s, err
		}
		// The floor: the same binary loaded, initialised and exited.
		cmd := exec.Command(bin, "--version")
		cmd.Env = daemonEnv(base, "")
		begun := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(base)
			return s, fmt.Errorf("switchboard --version: %v: %s", err, out)
		}
		s.version = append(s.version, time.Since(begun))

		raw, _, _ := store.NewTokenSecret()
		for _, fresh := range []bool{true, false} {
			ready, answer, err := startOnce(ctx, client, bin, base, raw)
			if err != nil {
				os.RemoveAll(base)
				return s, err
			}
			if fresh {
				s.freshReady, s.freshAnswer = append(s.freshReady, ready), append(s.freshAnswer, answer)
			} else {
				s.restartReady, s.restartAnswer = append(s.restartReady, ready), append(s.restartAnswer, answer)
			}
		}
		os.RemoveAll(base)
	}
	return s, nil
}

// startOnce starts a daemon in base, waits for it to answer, and stops it.
func startOnce(ctx context.Context, client *http.Client, bin, base, token string) (ready, answer time.Duration, err error) {
	p, err := startDaemon(bin, base, token)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if serr := p.stop(); err == nil {
			err = serr
		}
	}()
	if ready, err = p.waitReady(15 * time.Second); err != nil {
		return 0, 0, err
	}
	answer, err = p.firstAnswer(ctx, client)
	client.CloseIdleConnections()
	return ready, answer, err
}

// median of durations (not sorted in place).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// spread is the smallest and largest of ds.
func spread(ds []time.Duration) (lo, hi time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	return slices.Min(ds), slices.Max(ds)
}
