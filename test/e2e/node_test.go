//go:build unix

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
)

// The Node side of the e2e tests lives in test/node: the official MCP
// TypeScript SDK as a client (client-e2e.mjs) and the MCP conformance suite
// (conformance_test.go). They need Node 20+ and npm with registry access for
// the first `npm ci`, so they run only with SWITCHBOARD_E2E_NODE=1.

const nodeSkip = "set SWITCHBOARD_E2E_NODE=1 to run the Node SDK and conformance tests " +
	"(needs node ≥ 20 and npm with registry access once, for `npm ci` in test/node); " +
	"`make test-e2e` does"

// nodeTransports are the transports client-e2e.mjs knows, in order.
var nodeTransports = []string{"http", "sse", "stdio"}

// nodeDir is test/node in this checkout.
func nodeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "node")
}

var (
	npmMu   sync.Mutex
	npmDone bool
	npmErr  error
)

// requireNode skips unless SWITCHBOARD_E2E_NODE=1, then makes sure
// test/node/node_modules matches package-lock.json and returns test/node.
func requireNode(t *testing.T) string {
	t.Helper()
	if os.Getenv("SWITCHBOARD_E2E_NODE") != "1" {
		t.Skip(nodeSkip)
	}
	v, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("SWITCHBOARD_E2E_NODE=1 but node does not run (%v): install Node 20 or later with npm", err)
	}
	var major int
	if fmt.Sscanf(string(v), "v%d.", &major); major < 20 {
		t.Fatalf("SWITCHBOARD_E2E_NODE=1 needs node 20 or later on PATH, found %s", strings.TrimSpace(string(v)))
	}
	dir := nodeDir()
	npmMu.Lock()
	defer npmMu.Unlock()
	if !npmDone {
		npmErr = npmCI(dir, nodeFiles)
		npmDone = true
	}
	if npmErr != nil {
		t.Fatal(npmErr)
	}
	return dir
}

// nodeFiles are what test/node's tests run, checked after an install.
var nodeFiles = []string{
	"node_modules/@modelcontextprotocol/sdk/package.json",
	"node_modules/conformance-016/dist/index.js",
	"node_modules/conformance-020/dist/index.js",
	"node_modules/node/bin/node",
}

// npmCI runs `npm ci` in dir when node_modules is missing, lacks one of
// files, or is older than package-lock.json. A lock file in the temp dir
// keeps parallel test processes from installing at once.
func npmCI(dir string, files []string) error {
	sum := sha256.Sum256([]byte(dir))
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "switchboard-npm-ci-"+hex.EncodeToString(sum[:6])+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if nodeModulesCurrent(dir, files) {
		return nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("%s/node_modules needs installing and there is no npm on PATH", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	begin := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out.String())
	}
	if !nodeModulesCurrent(dir, files) {
		return fmt.Errorf("npm ci in %s succeeded but node_modules is still incomplete (were install scripts blocked? the node package's preinstall fetches Node 22)\n%s", dir, out.String())
	}
	fmt.Fprintf(os.Stderr, "npm ci in test/%s: %s\n", filepath.Base(dir), time.Since(begin).Round(time.Second))
	return nil
}

// nodeModulesCurrent reports whether npm's own record of the install
// (node_modules/.package-lock.json) is at least as new as package-lock.json
// and files, what the tests run, are there.
func nodeModulesCurrent(dir string, files []string) bool {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	stamp, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil || stamp.ModTime().Before(lock.ModTime()) {
		return false
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// nodeEnv is the environment of a node process: the test's own, without
// Switchboard settings, plus extra.
func nodeEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SWITCHBOARD_") || strings.HasPrefix(k, "SB_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// TestNodeSDKClient drives the real daemon with the official TypeScript SDK
// client (test/node/client-e2e.mjs) over each transport: initialize,
// tools/list, status, a hidden tool, and a bad token over HTTP.
// SWITCHBOARD_E2E_NODE_TRANSPORTS (say "http,sse") limits the transports;
// the others are skipped.
func TestNodeSDKClient(t *testing.T) {
	dir := requireNode(t)
	want := nodeTransports
	if s := os.Getenv("SWITCHBOARD_E2E_NODE_TRANSPORTS"); s != "" {
		want = strings.Split(s, ",")
	}

	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	envJSON, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}

	for _, tr := range nodeTransports {
		t.Run(tr, func(t *testing.T) {
			if !slices.Contains(want, tr) {
				t.Skipf("%s is not in SWITCHBOARD_E2E_NODE_TRANSPORTS=%s", tr, os.Getenv("SWITCHBOARD_E2E_NODE_TRANSPORTS"))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "client-e2e.mjs")
			cmd.Dir = dir
			cmd.Env = nodeEnv(
				"SB_ENDPOINT="+ep,
				"SB_TOKEN="+tok,
				"SB_BIN="+binPath,
				"SB_ENV_JSON="+string(envJSON),
				"SB_TRANSPORTS="+tr,
			)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node client-e2e.mjs over %s: %v\n%s", tr, err, out)
			}
			t.Logf("node client-e2e.mjs over %s:\n%s", tr, out)
		})
	}
}
