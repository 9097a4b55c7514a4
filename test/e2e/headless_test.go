package e2e

import (
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var tokenRE = regexp.MustCompile(`^sbt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`)

const statusCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{}}}`

// TestHeadlessStatus is the walk-through: start headless in empty
// folders, 401 without a token, status with the client token, audit verify.
func TestHeadlessStatus(t *testing.T) {
	d := newDirs(t)
	env := d.env(false)
	begin := time.Now()
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	t.Logf("start to endpoint file: %s", time.Since(begin).Round(time.Millisecond))

	u, err := url.Parse(ep)
	if err != nil || u.Path != "/mcp" {
		t.Fatalf("endpoint %q is not an /mcp URL", ep)
	}
	if host, _, _ := net.SplitHostPort(u.Host); host != "127.0.0.1" {
		t.Fatalf("endpoint %q is not on 127.0.0.1", ep)
	}
	for _, f := range []string{"mcp-http-endpoint", "pid", "control.sock"} {
		fi, err := os.Stat(filepath.Join(d.run, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	for _, dir := range []string{d.data, d.run} {
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Join(d.data, "state.db")); fi.Mode().Perm() != 0o600 {
		t.Errorf("state.db has mode %v", fi.Mode().Perm())
	}
	// The endpoint file is written as the daemon starts, the startup
	// lines once it has: they are waited for, as the other tests do.
	if !p.waitOutput("switchboard token client") || !strings.Contains(p.Output(), ep) {
		t.Errorf("startup lines lack the endpoint or how to get a token:\n%s", p.Output())
	}

	r := post(t, ep, "", statusCall)
	if r.Status != 401 || r.Error == nil || r.Error.Data.Code != "token_missing" {
		t.Fatalf("no token: %d %s", r.Status, r.Body)
	}
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="switchboard"` {
		t.Errorf("WWW-Authenticate = %q", got)
	}

	tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	if !tokenRE.MatchString(tok) {
		t.Fatalf("token client printed something that is not a token")
	}
	if strings.Contains(p.Output(), tok) {
		t.Fatal("the daemon printed the client token")
	}
	r = post(t, ep, tok, statusCall)
	sc := r.Result.StructuredContent
	if r.Status != 200 || r.Result.IsError || sc["ok"] != true {
		t.Fatalf("status with the client token: %d %s", r.Status, r.Body)
	}
	auditID, _ := sc["audit_id"].(string)
	if !strings.HasPrefix(auditID, "aud_") {
		t.Fatalf("audit_id = %v", sc["audit_id"])
	}
	if len(r.Result.Content) == 0 || !strings.Contains(r.Result.Content[0].Text, `"version"`) {
		t.Errorf("content text does not carry the result: %s", r.Body)
	}

	// The call is in the audit log with its id, transport and token.
	var audit struct {
		Records []struct {
			ID, Transport, Method, Outcome, KeyID string
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, env, "audit", "--json", "--method", "status")), &audit); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rec := range audit.Records {
		if rec.ID == auditID {
			found = rec.Transport == "mcp" && rec.Outcome == "ok" && strings.HasPrefix(tok, "sbt_"+rec.KeyID)
		}
	}
	if !found {
		t.Fatalf("audit has no matching record %s: %+v", auditID, audit.Records)
	}
	if out := mustCLI(t, env, "audit", "--verify"); !strings.Contains(out, "audit chain OK") {
		t.Fatalf("audit --verify: %s", out)
	}
	if got := strings.TrimSpace(mustCLI(t, env, "endpoint")); got != ep {
		t.Fatalf("switchboard endpoint = %q, want %q", got, ep)
	}
	p.stop()
	for _, f := range []string{"mcp-http-endpoint", "pid", "control.sock"} {
		if _, err := os.Stat(filepath.Join(d.run, f)); !os.IsNotExist(err) {
			t.Errorf("%s left behind after a clean stop", f)
		}
	}
}

// TestSecondInstanceRefuses: a second start says "already running" with the
// running endpoint and exits non-zero within 5 s.
func TestSecondInstanceRefuses(t *testing.T) {
	d := newDirs(t)
	env := d.env(false)
	first := start(t, env, "--headless")
	ep := waitEndpoint(t, first, d, 15*time.Second)

	begin := time.Now()
	second := start(t, env, "--headless")
	code, exited := second.wait(5 * time.Second)
	if !exited {
		t.Fatal("second instance still running after 5 s")
	}
	if code == 0 {
		t.Fatal("second instance exited 0")
	}
	out := second.Output()
	if !strings.Contains(out, "already running") || !strings.Contains(out, ep) {
		t.Fatalf("second instance said:\n%s", out)
	}
	t.Logf("second instance refused in %s", time.Since(begin).Round(time.Millisecond))
	// The first one is unharmed.
	if got := strings.TrimSpace(mustCLI(t, env, "endpoint")); got != ep {
		t.Fatalf("endpoint after the refused start = %q", got)
	}
}

// TestSecondInstanceRefusesOnLockAlone: with the control socket gone (a
// different runtime dir), the database lock alone stops a second start,
// still within 5 s.
func TestSecondInstanceRefusesOnLockAlone(t *testing.T) {
	d := newDirs(t)
	first := start(t, d.env(false), "--headless")
	waitEndpoint(t, first, d, 15*time.Second)

	other := d
	other.run = d.run + "2"
	second := start(t, other.env(false), "--headless")
	code, exited := second.wait(5 * time.Second)
	if !exited || code == 0 || !strings.Contains(second.Output(), "already running") {
		t.Fatalf("exited=%v code=%d:\n%s", exited, code, second.Output())
	}
}

func TestListenAddressRules(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
		want string // in the output
	}{
		{[]string{"--mcp-http-addr", "0.0.0.0:0"}, false, "non-loopback"},
		{[]string{"--mcp-http-addr", "192.168.1.1:8080"}, false, "non-loopback"},
		{[]string{"--mcp-http-addr", ":0"}, false, "non-loopback"},
		{[]string{"--mcp-http-addr", "off"}, true, "MCP endpoint: off"},
		{[]string{"--mcp-http-addr", "127.0.0.1:0"}, true, "http://127.0.0.1:"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d := newDirs(t)
			p := start(t, d.env(false), append(tc.args, "--headless")...)
			if !tc.ok {
				code, exited := p.wait(5 * time.Second)
				if !exited || code == 0 || !strings.Contains(p.Output(), tc.want) {
					t.Fatalf("exited=%v code=%d:\n%s", exited, code, p.Output())
				}
				return
			}
			if !p.waitOutput(tc.want) {
				t.Fatalf("output lacks %q:\n%s", tc.want, p.Output())
			}
			p.stop()
		})
	}
}

// TestBarePortAndRememberedPort: a bare port means 127.0.0.1:PORT; without
// a flag the next start reuses the last port, so clients keep working.
func TestBarePortAndRememberedPort(t *testing.T) {
	d := newDirs(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	p := start(t, d.env(false), "--headless", "--mcp-http-addr", strconv.Itoa(port))
	ep := waitEndpoint(t, p, d, 15*time.Second)
	if want := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"; ep != want {
		t.Fatalf("endpoint %q, want %q", ep, want)
	}
	p.stop()
	p = start(t, d.env(false), "--headless")
	if ep2 := waitEndpoint(t, p, d, 15*time.Second); ep2 != ep {
		t.Fatalf("after restart the endpoint moved: %q → %q", ep, ep2)
	}
	p.stop()
}

// TestHeadlessWithoutDisplay: no DISPLAY and no flag → headless.
func TestHeadlessWithoutDisplay(t *testing.T) {
	d := newDirs(t)
	p := start(t, d.env(false))
	waitEndpoint(t, p, d, 15*time.Second)
	if !p.waitOutput("Running headless") {
		t.Fatalf("no headless line:\n%s", p.Output())
	}
	p.stop()
}

// TestMalformedEnvTokenStops: a malformed SWITCHBOARD_MCP_TOKEN stops
// startup with a clear error that does not echo the value.
func TestMalformedEnvTokenStops(t *testing.T) {
	d := newDirs(t)
	bad := "sbt_nothex_" + strings.Repeat("x", 10)
	p := start(t, d.env(false, "SWITCHBOARD_MCP_TOKEN="+bad), "--headless")
	code, exited := p.wait(10 * time.Second)
	if !exited || code == 0 {
		t.Fatalf("exited=%v code=%d", exited, code)
	}
	out := p.Output()
	if !strings.Contains(out, "SWITCHBOARD_MCP_TOKEN") || !strings.Contains(out, "token_malformed") || strings.Contains(out, bad) {
		t.Fatalf("output:\n%s", out)
	}
}

// TestEnvTokenIsTheClientToken: a well-formed SWITCHBOARD_MCP_TOKEN is the
// client token for the run, and the startup line says where it came from.
func TestEnvTokenIsTheClientToken(t *testing.T) {
	d := newDirs(t)
	// A token made by another instance's CLI has the right format.
	tok := "sbt_0123456789abcdef_" + strings.Repeat("A", 42) + "w"
	env := d.env(false, "SWITCHBOARD_MCP_TOKEN="+tok)
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	if !p.waitOutput("from SWITCHBOARD_MCP_TOKEN") {
		t.Fatalf("startup lines:\n%s", p.Output())
	}
	if r := post(t, ep, tok, statusCall); r.Status != 200 || r.Result.StructuredContent["ok"] != true {
		t.Fatalf("status with the env token: %s", r.Body)
	}
	p.stop()
}
