// Package e2e runs the real switchboard binary: headless and with its tray,
// against the CLI, curl-like HTTP clients, a real keyring and SIGKILL.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor"
)

// binPath is the binary under test: SWITCHBOARD_E2E_BIN's, or built once
// by TestMain.
var binPath string

// binEnv names a folder holding switchboard and its sandbox helper as make
// build lays them (make test-e2e passes bin/): the tests run those instead
// of linking the app again, which takes longer than most tests here.
const binEnv = "SWITCHBOARD_E2E_BIN"

func TestMain(m *testing.M) {
	if dir := os.Getenv(binEnv); dir != "" {
		binPath = filepath.Join(dir, "switchboard")
		for _, f := range []string{binPath, filepath.Join(dir, supervisor.HelperName)} {
			if _, err := os.Stat(f); err != nil {
				fmt.Fprintf(os.Stderr, "%s=%s: %v (make build lays both there)\n", binEnv, dir, err)
				os.Exit(1)
			}
		}
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "sbe2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "switchboard")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building switchboard:", err)
		os.Exit(1)
	}
	// Its sandbox helper beside it, as make build and make install lay
	// them: the agents of the tests start confined through it.
	helper := exec.Command("go", "build", "-o", filepath.Join(dir, supervisor.HelperName), "./cmd/switchboard-sandbox")
	helper.Dir, helper.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	helper.Stdout, helper.Stderr = os.Stderr, os.Stderr
	if err := helper.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building switchboard-sandbox:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary returns the path of the switchboard binary under test.
func buildBinary(t *testing.T) string {
	t.Helper()
	return binPath
}

// dirs are one instance's data and runtime folders. The runtime dir is kept
// short: Unix socket paths are limited to 108 bytes.
type dirs struct {
	data, run, home string
}

func newDirs(t *testing.T) dirs {
	t.Helper()
	base, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	d := dirs{data: filepath.Join(base, "data"), run: filepath.Join(base, "run"), home: filepath.Join(base, "home")}
	os.MkdirAll(d.home, 0o700)
	return d
}

// ciMarkers are the variables a CI runner sets to say nobody is at the
// keyboard. A person's desktop session has none, and the agent CLIs read
// them: Gemini CLI with CI=true runs headless and refuses an untrusted
// folder instead of asking, so a test that kept them would see another
// CLI than the person does.
var ciMarkers = []string{"CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID"}

// env is the environment of an instance: its folders, a private HOME, a
// parseable locale, and nothing of the caller's Switchboard settings or
// of the CI runner's. Display and bus variables are kept only when
// withDesktop.
func (d dirs) env(withDesktop bool, extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SWITCHBOARD_"), k == "HOME", k == "LANG", k == "LC_ALL", slices.Contains(ciMarkers, k):
			continue
		case !withDesktop && (k == "DISPLAY" || k == "WAYLAND_DISPLAY" || k == "DBUS_SESSION_BUS_ADDRESS"):
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "SWITCHBOARD_DATA_DIR="+d.data, "SWITCHBOARD_RUNTIME_DIR="+d.run, "HOME="+d.home, "LANG=en_US.UTF-8")
	return append(out, extra...)
}

// proc is a running switchboard.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	output bytes.Buffer // stdout and stderr, guarded by mu
	// wrote is closed, and replaced, by each Write: waitOutput's
	// signal; nil until then. Guarded by mu.
	wrote chan struct{}
	err   error // Wait's result, set before done closes
}

// start runs the binary with env and args and returns at once.
func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startBin(t, binPath, env, args...)
}

// startBin is start of another build (cmd/switchboard-daemon).
func startBin(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = p
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("switchboard output:\n%s", p.Output())
		}
	})
	return p
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wrote != nil {
		close(p.wrote)
	}
	p.wrote = make(chan struct{})
	return p.output.Write(b)
}

// waitOutput waits for the process to print s, looking again at each
// write, and reports whether it did before it exited or the test's deadline
// came near. The startup lines come after the endpoint file, which is what
// waitEndpoint waits for.
func (p *proc) waitOutput(s string) bool {
	deadline, stop := nearDeadline(p.t)
	defer stop()
	for {
		p.mu.Lock()
		if p.wrote == nil {
			p.wrote = make(chan struct{})
		}
		has, wrote := strings.Contains(p.output.String(), s), p.wrote
		p.mu.Unlock()
		if has {
			return true
		}
		select {
		case <-wrote:
		case <-p.done:
			return strings.Contains(p.Output(), s)
		case <-deadline:
			return false
		}
	}
}

// Output is what the process printed so far.
func (p *proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output.String()
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *proc) wait(d time.Duration) (int, bool) {
	select {
	case <-p.done:
		if ee, ok := p.err.(*exec.ExitError); ok {
			return ee.ExitCode(), true
		}
		if p.err != nil {
			return -1, true
		}
		return 0, true
	case <-time.After(d):
		return 0, false
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop() {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, ok := p.wait(10 * time.Second)
	if !ok {
		p.t.Fatal("switchboard did not exit within 10 s of SIGTERM")
	}
	if code != 0 {
		p.t.Fatalf("switchboard exited %d after SIGTERM", code)
	}
}

// waitEndpoint waits for the endpoint file (written last, when ready) and
// returns the URL.
func waitEndpoint(t *testing.T, p *proc, d dirs, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(d.run, "mcp-http-endpoint")); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return strings.TrimSpace(string(b))
		}
		select {
		case <-p.done:
			t.Fatalf("switchboard exited before it was ready:\n%s", p.Output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no endpoint file within %s", within)
	return ""
}

// cli runs a switchboard subcommand and returns its stdout, stderr and exit
// code.
func cli(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("switchboard %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustCLI runs a subcommand that must succeed and returns its stdout.
func mustCLI(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, env, args...)
	if code != 0 {
		t.Fatalf("switchboard %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// rpcResponse is a JSON-RPC response as the tests read it.
type rpcResponse struct {
	Status int
	Header http.Header
	Body   []byte
	Result struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

// post sends one JSON-RPC body to the endpoint with an optional bearer
// token and decodes the answer.
func post(t *testing.T, endpoint, token, body string) rpcResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rpcResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("answer is not JSON (%d): %s", resp.StatusCode, b)
	}
	return r
}

// lines splits output into trimmed non-empty lines.
func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}
