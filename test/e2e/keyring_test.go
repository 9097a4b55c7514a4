package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClientTokenSurvivesRestartInKeyring runs against the real Secret
// Service that make test starts (scripts/with-keyring.sh): the client token
// lives in gnome-keyring, so a restart serves the same one.
func TestClientTokenSurvivesRestartInKeyring(t *testing.T) {
	if os.Getenv("SWITCHBOARD_TEST_KEYRING") != "1" {
		t.Skip("needs a real keyring: run under scripts/with-keyring.sh (make test does)")
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("SWITCHBOARD_TEST_KEYRING=1 but no session bus")
	}
	d := newDirs(t)
	// The bus is needed for the keyring; the display is not.
	env := append(d.env(false), "DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"))

	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	if !p.waitOutput("kept in the OS keyring") {
		t.Fatalf("first start did not use the keyring:\n%s", p.Output())
	}
	tok1 := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	p.stop()

	p = start(t, env, "--headless")
	ep2 := waitEndpoint(t, p, d, 15*time.Second)
	tok2 := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	if tok1 != tok2 {
		t.Fatal("the client token changed across a restart")
	}
	if r := post(t, ep2, tok1, statusCall); r.Status != 200 || r.Result.StructuredContent["ok"] != true {
		t.Fatalf("the first run's token no longer works: %s", r.Body)
	}
	_ = ep

	// Rotation is one call; the keyring keeps the new one across a restart.
	rotated := strings.TrimSpace(mustCLI(t, env, "token", "rotate"))
	if rotated == tok1 || !tokenRE.MatchString(rotated) {
		t.Fatal("rotate did not print a new token")
	}
	if r := post(t, ep2, tok1, statusCall); r.Status != 401 || r.Error.Data.Code != "token_revoked" {
		t.Fatalf("old token after rotate: %d %s", r.Status, r.Body)
	}
	p.stop()
	p = start(t, env, "--headless")
	ep3 := waitEndpoint(t, p, d, 15*time.Second)
	if got := strings.TrimSpace(mustCLI(t, env, "token", "client")); got != rotated {
		t.Fatal("after restart the client token is not the rotated one")
	}
	if r := post(t, ep3, rotated, statusCall); r.Status != 200 {
		t.Fatalf("rotated token after restart: %s", r.Body)
	}
	p.stop()
}

// TestWedgedKeyringDoesNotHangStartup points the app at a session bus that
// accepts connections and never answers: go-keyring would wait forever; the
// app gives up after its timeout and runs with a token for this run.
func TestWedgedKeyringDoesNotHangStartup(t *testing.T) {
	d := newDirs(t)
	sock := filepath.Join(d.home, "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Hold the connection open and say nothing.
			defer c.Close()
		}
	}()
	env := append(d.env(false), "DBUS_SESSION_BUS_ADDRESS=unix:path="+sock)
	begin := time.Now()
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 10*time.Second)
	took := time.Since(begin)
	t.Logf("ready after %s with a wedged keyring", took.Round(time.Millisecond))
	p.waitOutput("minted for this run only")
	out := p.Output()
	if !strings.Contains(out, "minted for this run only") || !strings.Contains(out, "unavailable") {
		t.Fatalf("startup lines do not say the keyring is unavailable:\n%s", out)
	}
	tok := strings.TrimSpace(mustCLI(t, d.env(false), "token", "client"))
	if r := post(t, ep, tok, statusCall); r.Status != 200 {
		t.Fatalf("status: %s", r.Body)
	}
	p.stop()
}
