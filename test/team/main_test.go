// Package team runs Switchboard's team mode as it is deployed: several
// real headless daemons (cmd/switchboard-daemon), each with a data folder
// and a runtime folder of its own as if on a machine of its own, all on
// one real PostgreSQL server (internal/pgtest), with agents over each
// one's loopback MCP endpoint. It kills instances, stops the database
// under load, and checks what every agent was told against the shared
// state and the audit log.
package team

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// binPath is the daemon built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sbteam")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "switchboard-daemon")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", binPath, "./cmd/switchboard-daemon")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building switchboard-daemon:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// timing is what an instance is started with: how often it beats, and how
// long it waits before it takes another for lost.
type timing struct {
	heartbeat, grace time.Duration
}

// instance is one machine's Switchboard: its folders, and its process
// while it runs.
type instance struct {
	t        *testing.T
	name     string
	data     string
	run      string
	home     string
	database string
	timing   timing

	id       string // the instance id, from its data folder, once started
	proc     *proc
	endpoint string
	token    string
}

func newInstance(t *testing.T, name, database string, tm timing) *instance {
	t.Helper()
	// Short: the control socket's path must fit in 108 bytes.
	base, err := os.MkdirTemp("", "sb"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	in := &instance{t: t, name: name, database: database, timing: tm,
		data: filepath.Join(base, "data"), run: filepath.Join(base, "run"), home: filepath.Join(base, "home")}
	if err := os.MkdirAll(in.home, 0o700); err != nil {
		t.Fatal(err)
	}
	return in
}

// env is the instance's environment: its folders, a private HOME, no
// desktop (no keyring: --token-file keeps the client token), and nothing
// of the caller's Switchboard settings.
func (in *instance) env() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SWITCHBOARD_"), k == "HOME", k == "DISPLAY", k == "WAYLAND_DISPLAY", k == "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "SWITCHBOARD_DATA_DIR="+in.data, "SWITCHBOARD_RUNTIME_DIR="+in.run, "HOME="+in.home,
		"LANG=C.UTF-8", "SHELL=/bin/sh")
	if in.timing.heartbeat > 0 {
		out = append(out, "SWITCHBOARD_HEARTBEAT="+in.timing.heartbeat.String())
	}
	if in.timing.grace > 0 {
		out = append(out, "SWITCHBOARD_INSTANCE_GRACE="+in.timing.grace.String())
	}
	return out
}

// start runs the daemon and returns once it printed its endpoint (its
// ready line), with the client token read through the CLI.
func (in *instance) start() {
	t := in.t
	t.Helper()
	in.proc = startProc(t, in.name, in.env(), "--headless", "--token-file", "--database", in.database)
	select {
	case ep := <-in.proc.endpoint:
		in.endpoint = ep
	case <-in.proc.done:
		t.Fatalf("%s exited before it was ready: %v\n%s", in.name, in.proc.err, in.proc.output())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s printed no endpoint within 30 s:\n%s", in.name, in.proc.output())
	}
	tok := strings.TrimSpace(in.cli("token", "client"))
	if in.token != "" && tok != in.token {
		t.Fatalf("%s: the client token changed across the restart despite --token-file", in.name)
	}
	in.token = tok
	b, err := os.ReadFile(filepath.Join(in.data, "instance"))
	if err != nil {
		t.Fatalf("%s: %v", in.name, err)
	}
	in.id = strings.TrimSpace(string(b))
}

// kill SIGKILLs the daemon and waits for it to be gone.
func (in *instance) kill() {
	in.t.Helper()
	in.proc.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-in.proc.done:
	case <-time.After(10 * time.Second):
		in.t.Fatalf("%s did not die of SIGKILL", in.name)
	}
}

// stop ends the daemon as a person would (SIGTERM) and waits for it.
func (in *instance) stop() {
	in.t.Helper()
	in.proc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.proc.done:
	case <-time.After(20 * time.Second):
		in.t.Fatalf("%s did not stop on SIGTERM", in.name)
	}
}

// cli runs a command of the CLI against the instance and returns its
// output; a failure fails the test.
func (in *instance) cli(args ...string) string {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = in.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		in.t.Fatalf("%s: switchboard %s: %v\n%s", in.name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// proc is a running daemon.
type proc struct {
	cmd      *exec.Cmd
	endpoint chan string // its MCP URL, once printed
	done     chan struct{}
	err      error // Wait's result, set before done closes

	mu  sync.Mutex
	out strings.Builder // guarded by mu
}

func startProc(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binPath, args...), endpoint: make(chan string, 1), done: make(chan struct{})}
	p.cmd.Env = env
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		// The ready line: "Switchboard V MCP endpoint: URL".
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			p.Write([]byte(line + "\n"))
			if _, ep, ok := strings.Cut(line, "MCP endpoint: "); ok {
				p.endpoint <- strings.TrimSpace(ep)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() {
		<-read // Wait closes the pipe: read it all first
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s's output (pid %d):\n%s", name, p.cmd.Process.Pid, p.output())
		}
	})
	return p
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// view reads the shared store directly, as a third party on the same
// database: what is committed, whatever the instances told their agents.
type view struct {
	t  *testing.T
	db *store.DB
}

func openView(t *testing.T, url string) *view {
	t.Helper()
	db, err := store.OpenPostgres(url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &view{t: t, db: db}
}

func (v *view) read(fn func(tx *store.Tx) error) {
	v.t.Helper()
	if err := v.db.View(context.Background(), fn); err != nil {
		v.t.Fatalf("read the shared store: %v", err)
	}
}

// waitFor looks at cond every tick until it holds or d has passed: the
// instances are other processes, and what they commit signals nothing to
// the test (it does not LISTEN), so this is the one place the test polls.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		<-tick.C
	}
}

// errDead is an agent's call that got no answer: its instance is gone.
var errDead = errors.New("no answer: the instance is gone")
