//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// conformanceRun is one run of the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed under an npm alias in
// test/node) against the real server.
type conformanceRun struct {
	name     string   // subtest
	pkg      string   // folder under test/node/node_modules
	baseline string   // expected-failures file in test/node, the suite's YAML format
	args     []string // besides server --url --expected-failures -o
	min      int      // fewer scenarios than this means the run went wrong
}

var conformanceRuns = []conformanceRun{
	// The released suite: its active server scenarios, 2025-06-18 and
	// 2025-11-25 era, stateful initialize handshake.
	{name: "0.1.16", pkg: "conformance-016", baseline: "conformance-expected-failures-0.1.16.yml", min: 25},
	// The 0.2.0 alpha on the 2026-07-28 wire (stateless, per-request _meta,
	// server/discover): every non-extension scenario for that revision,
	// pending ones included.
	{name: "0.2.0-alpha_2026-07-28", pkg: "conformance-020", baseline: "conformance-expected-failures-0.2.0.yml",
		args: []string{"--suite", "all", "--spec-version", "2026-07-28"}, min: 35},
}

// TestConformance runs the MCP conformance suite's server scenarios, on
// Node 22 from test/node, through a proxy that adds the client token (the
// suite cannot send an Authorization header). A scenario outside the
// expected-failures file that fails, or one listed there that passes,
// fails the test: the suite's own baseline check decides (WARNINGs count as
// failures there). SWITCHBOARD_CONFORMANCE_OUT=DIR keeps the raw results.
func TestConformance(t *testing.T) {
	dir := requireNode(t)
	node22 := filepath.Join(dir, "node_modules", "node", "bin", "node")
	v, err := exec.Command(node22, "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "v22.") {
		t.Fatalf("%s --version: %q %v (want Node 22 from the node package in test/node)", node22, v, err)
	}

	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	proxyURL := authProxy(t, ep, tok)

	for _, run := range conformanceRuns {
		t.Run(run.name, func(t *testing.T) {
			out := t.TempDir()
			if keep := os.Getenv("SWITCHBOARD_CONFORMANCE_OUT"); keep != "" {
				out = filepath.Join(keep, run.name)
				os.RemoveAll(out)
			}
			baseline := filepath.Join(dir, run.baseline)
			args := append([]string{filepath.Join(dir, "node_modules", run.pkg, "dist", "index.js"), "server",
				"--url", proxyURL, "--expected-failures", baseline, "-o", out}, run.args...)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			expected, err := readBaseline(baseline)
			if err != nil {
				t.Fatal(err)
			}
			var output []byte
			var runErr error
			var results conformanceResults
			begin := time.Now()
			for try := 1; ; try++ {
				os.RemoveAll(out)
				cmd := exec.CommandContext(ctx, node22, args...)
				cmd.Dir = dir
				cmd.Env = nodeEnv("NO_COLOR=1", "FORCE_COLOR=0")
				output, runErr = cmd.CombinedOutput()
				if results, err = readConformanceResults(out); err != nil {
					t.Fatal(err)
				}
				// On the first run after a fresh npm ci, or under load, the
				// suite's HTTP client has been seen to drop a request
				// ("terminated"), read its answer as null, or wait out a
				// scenario's 30 s; a second run passes.
				// Retry once when that is the only kind of failure, and say
				// so: any real failure still fails the test.
				if runErr == nil || try == 2 || !onlyDroppedRequests(results.failures(expected)) {
					break
				}
				t.Logf("conformance %s: only dropped requests or answers failed; running the suite once more:\n%s", run.name, results.failures(expected))
			}
			t.Logf("conformance %s (%s) against %s: %d scenarios in %s\n%s", run.name, packageVersion(dir, run.pkg),
				ep, len(results), time.Since(begin).Round(100*time.Millisecond), results.table(expected))
			if runErr != nil {
				t.Fatalf("the suite reports unexpected failures or stale expected-failures entries (%v); "+
					"a scenario that fails because of a server bug is to be fixed, not listed in %s.\n%s\n%s",
					runErr, run.baseline, summary(string(output)), results.failures(expected))
			}
			if len(results) < run.min {
				t.Fatalf("only %d scenarios ran (want ≥ %d):\n%s", len(results), run.min, output)
			}
		})
	}
}

// authProxy serves on 127.0.0.1:0 and forwards everything to the endpoint's
// host with Authorization: Bearer tok added. The Host header becomes the
// target's, unless the client sent a Host other than the proxy's own: that
// one (the DNS-rebinding scenario's evil.example.com) reaches the server as
// sent, so the server's Host check is what gets tested.
func authProxy(t *testing.T, endpoint, tok string) string {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := ln.Addr().String()
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
			if r.In.Host != self {
				r.Out.Host = r.In.Host
			}
			r.Out.Header.Set("Authorization", "Bearer "+tok)
		},
		FlushInterval: -1, // SSE streams pass through as they come
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + self + target.Path
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// conformanceResults are the checks per scenario.
type conformanceResults map[string][]conformanceCheck

var resultDirRE = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readConformanceResults reads out/server-<scenario>-<time>/checks.json.
func readConformanceResults(out string) (conformanceResults, error) {
	entries, err := os.ReadDir(out)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	res := conformanceResults{}
	for _, e := range entries {
		m := resultDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s/checks.json: %v", e.Name(), err)
		}
		res[m[1]] = append(res[m[1]], checks...)
	}
	return res, nil
}

// failing is the suite's notion of a failed check.
func (c conformanceCheck) failing() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

func (r conformanceResults) names() []string {
	var out []string
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// table is one line per scenario: PASS, FAIL, or FAIL (expected).
func (r conformanceResults) table(expected map[string]bool) string {
	var b strings.Builder
	for _, n := range r.names() {
		var bad []string
		for _, c := range r[n] {
			if c.failing() {
				bad = append(bad, c.ID)
			}
		}
		verdict := "PASS"
		if len(bad) > 0 {
			verdict = "FAIL"
			if expectedScenario(expected, n, bad) {
				verdict = "FAIL (expected)"
			}
		}
		fmt.Fprintf(&b, "  %-16s %-45s %d checks", verdict, n, len(r[n]))
		if len(bad) > 0 {
			fmt.Fprintf(&b, "; failing: %s", strings.Join(bad, ", "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// failures details the failing checks of the scenarios that are not
// entirely expected to fail.
func (r conformanceResults) failures(expected map[string]bool) string {
	var b strings.Builder
	for _, n := range r.names() {
		if expected[n] {
			continue
		}
		for _, c := range r[n] {
			if !c.failing() || expected[n+":"+c.ID] {
				continue
			}
			details := string(c.Details)
			if len(details) > 600 {
				details = details[:600] + "…"
			}
			fmt.Fprintf(&b, "  %s / %s: %s %s\n      details: %s\n", n, c.ID, c.Status, c.ErrorMessage, details)
		}
	}
	if b.Len() == 0 {
		return "(no failing checks outside the expected-failures file: an entry there is stale, see above)"
	}
	return "Failing checks outside the expected-failures file:\n" + b.String()
}

func expectedScenario(expected map[string]bool, scenario string, failingIDs []string) bool {
	if expected[scenario] {
		return true
	}
	for _, id := range failingIDs {
		if !expected[scenario+":"+id] {
			return false
		}
	}
	return true
}

// readBaseline reads the entries of the suite's expected-failures YAML
// (`server:` followed by `- scenario` or `- scenario:check-id` lines,
// comments allowed): enough for the table, the suite parses it for real.
func readBaseline(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]bool{}
	inServer := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimRight(line, " \t")
		switch {
		case line == "":
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			inServer = strings.TrimSpace(line) == "server:"
		case inServer:
			if e, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				out[strings.Trim(strings.TrimSpace(e), `"'`)] = true
			}
		}
	}
	return out, sc.Err()
}

// summary is the suite's output from its summary on (the per-scenario
// progress lines before it say nothing).
func summary(out string) string {
	out = ansiRE.ReplaceAllString(out, "")
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		return out[i:]
	}
	return out
}

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

func packageVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return "?"
	}
	var p struct{ Name, Version string }
	json.Unmarshal(b, &p)
	return p.Name + "@" + p.Version
}

// onlyDroppedRequests reports whether every failing check in a failures
// listing failed because the suite's client lost a request or its answer:
// its "terminated" error, a probe whose response it read as null, or a
// scenario that "did not finish the exchange" in 30 s (each seen once, under
// make test's load; the same scenarios pass on every rerun).
func onlyDroppedRequests(failures string) bool {
	lines := strings.Split(failures, "\n")
	n := 0
	for i, line := range lines {
		if !strings.Contains(line, ": FAILURE") && !strings.Contains(line, ": WARNING") {
			continue
		}
		// The check's details follow on the lines up to the next check.
		var details strings.Builder
		for _, next := range lines[i+1:] {
			if strings.Contains(next, ": FAILURE") || strings.Contains(next, ": WARNING") {
				break
			}
			details.WriteString(strings.Join(strings.Fields(next), ""))
		}
		dropped := strings.Contains(line, "terminated") || strings.Contains(line, "did not finish the exchange") ||
			strings.Contains(details.String(), `"response":null`)
		if !dropped {
			return false
		}
		n++
	}
	return n > 0
}

func TestOnlyDroppedRequests(t *testing.T) {
	for _, c := range []struct {
		failures string
		want     bool
	}{
		{"Failing checks outside the expected-failures file:\n  tools-list / tools-list: FAILURE Failed: terminated\n      details: \n", true},
		{"Failing checks outside the expected-failures file:\n  server-stateless / x: FAILURE Advertised tools capability but tools/list call failed\n      details: {\n      \"response\": null\n    }\n", true},
		{"Failing checks outside the expected-failures file:\n  server-stateless / x: FAILURE Advertised tools capability but tools/list call failed\n      details: {\"response\": null}\n", true},
		{"Failing checks outside the expected-failures file:\n  a / b: FAILURE wrong code\n      details: {\"response\": {\"error\": 1}}\n  tools-list / tools-list: FAILURE Failed: terminated\n      details: \n", false},
		{"Failing checks outside the expected-failures file:\n  http-header-validation / scenario-timeout: FAILURE Scenario 'http-header-validation' did not complete within 30000ms. The server under test accepted the connection but did not finish the exchange.\n      details: \n", true},
		{"(no failing checks outside the expected-failures file: an entry there is stale, see above)", false},
	} {
		if got := onlyDroppedRequests(c.failures); got != c.want {
			t.Errorf("onlyDroppedRequests(%q) = %v, want %v", c.failures, got, c.want)
		}
	}
}
