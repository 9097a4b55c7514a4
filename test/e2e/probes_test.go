package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The probes of the hardening review, run as an attacker would run them:
// against the real headless daemon over loopback, with tokens the CLI
// mints. Each was once answered wrongly; each must now be refused with its
// code (the full tables are in mcpserver's tests).

// prober is a daemon with two repositories and a way to call tools.
type prober struct {
	t      *testing.T
	env    []string
	ep     string
	repoA  string
	repoB  string
	dataOf func() string
}

func newProber(t *testing.T) *prober {
	t.Helper()
	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	pr := &prober{t: t, env: env, ep: waitEndpoint(t, p, d, 15*time.Second)}
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(mustCLI(t, env, "repo", "add", dir))
		if name == "a" {
			pr.repoA = id
		} else {
			pr.repoB = id
		}
	}
	return pr
}

// token mints a token with the grants given as CAP@repo,repo.
func (pr *prober) token(grants ...string) (raw, keyID string) {
	pr.t.Helper()
	args := []string{"token", "create", "--json", "--label", "probe", "--kind", "session"}
	for _, g := range grants {
		args = append(args, "--grant", g)
	}
	var out struct {
		Token struct {
			KeyID string `json:"keyid"`
		} `json:"token"`
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(mustCLI(pr.t, pr.env, args...)), &out); err != nil || out.Secret == "" {
		pr.t.Fatalf("token create: %v", err)
	}
	return out.Secret, out.Token.KeyID
}

// call makes one tools/call and returns the answer's code ("ok" or the
// denial's), its structured result and the whole answer's text.
func (pr *prober) call(tok, tool string, args any) (string, map[string]any, string) {
	pr.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	r := post(pr.t, pr.ep, tok, string(body))
	if r.Error != nil {
		return r.Error.Data.Code, nil, string(r.Body)
	}
	sc := r.Result.StructuredContent
	if e, ok := sc["error"].(string); ok {
		return e, sc, string(r.Body)
	}
	res, _ := sc["result"].(map[string]any)
	return "ok", res, string(r.Body)
}

func (pr *prober) must(tok, tool string, args any) map[string]any {
	pr.t.Helper()
	code, res, body := pr.call(tok, tool, args)
	if code != "ok" {
		pr.t.Fatalf("%s: %s", tool, body)
	}
	return res
}

func (pr *prober) expect(what, tok, tool string, args any, want string) string {
	pr.t.Helper()
	code, _, body := pr.call(tok, tool, args)
	if code != want {
		pr.t.Errorf("%s: %s answered %q, want %q: %s", what, tool, code, want, body)
	}
	return body
}

func (pr *prober) packet(repo string, extra ...string) string {
	pr.t.Helper()
	args := append([]string{"work", "create", "--repo", repo, "--title", "probe"}, extra...)
	return strings.TrimSpace(mustCLI(pr.t, pr.env, args...))
}

func TestProbesOnTheRealServer(t *testing.T) {
	pr := newProber(t)
	a, b := pr.repoA, pr.repoB

	// 1. Writes are scoped to the packet's repository: work:claim on A
	// and B, artifact:write on A only; a packet claimed in B takes no
	// artifact, so it cannot complete either.
	mixed, _ := pr.token("work:claim@"+a+","+b, "session:report@"+a+","+b, "artifact:write@"+a)
	pktB := pr.packet(b, "--artifact", "report")
	ses := pr.must(mixed, "session_report", map[string]any{"kind": "ready", "repository_id": b})["session_id"]
	claim := pr.must(mixed, "work_await_packet", map[string]any{"repository_id": b, "session_id": ses, "wait_seconds": 0})
	lease := map[string]any{"packet_id": pktB, "session_id": ses, "lease_id": claim["lease_id"]}
	pr.must(mixed, "work_ack", lease)
	pr.expect("publish in B with artifact:write on A", mixed, "artifact_publish",
		map[string]any{"packet_id": pktB, "session_id": ses, "lease_id": claim["lease_id"], "name": "report", "content": "x"}, "capability_scope_mismatch")
	pr.expect("complete without the artifact", mixed, "work_complete", lease, "artifacts_missing")

	// 2. Lease methods on another repository's packet say nothing of it.
	onlyB, _ := pr.token("work:claim@"+b, "session:report@"+b, "artifact:write@"+b, "status:read@"+b)
	pktA := pr.packet(a)
	sesB := pr.must(onlyB, "session_report", map[string]any{"kind": "ready", "repository_id": b})["session_id"]
	for _, tool := range []string{"work_ack", "work_complete", "work_release", "artifact_publish"} {
		body := pr.expect("lease call on A's packet", onlyB, tool,
			map[string]any{"packet_id": pktA, "session_id": sesB, "lease_id": "lease_x", "name": "n", "content": "x"}, "capability_scope_mismatch")
		for _, leak := range []string{a, "queued", "leased", "in_review"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s on A's packet: the refusal mentions %q: %s", tool, leak, body)
			}
		}
	}

	// 3. A report cannot name another repository's packet; a session
	// opens in a repository.
	pr.expect("report naming A's packet", onlyB, "session_report",
		map[string]any{"kind": "heartbeat", "session_id": sesB, "packet_id": pktA}, "capability_scope_mismatch")
	pr.expect("ready without a repository", onlyB, "session_report", map[string]any{"kind": "ready"}, "invalid_argument")

	// 6. A 200 KB tool name is refused with its name cut, in the answer
	// and the audit record.
	long := strings.Repeat("x", 200<<10)
	body := pr.expect("200 KB tool name", onlyB, long, map[string]any{}, "method_unknown")
	if len(body) > 4<<10 {
		t.Errorf("the answer to a 200 KB tool name is %d bytes", len(body))
	}
	var audit struct {
		Records []struct {
			Method string `json:"method"`
		} `json:"records"`
	}
	out := mustCLI(t, pr.env, "audit", "--json", "--limit", "5", "--outcome", "method_unknown")
	if err := json.Unmarshal([]byte(out), &audit); err != nil || len(audit.Records) == 0 {
		t.Fatalf("audit --json: %v: %.300s", err, out)
	}
	if m := audit.Records[0].Method; len(m) > 40 || !strings.HasPrefix(m, "xxxx") {
		t.Errorf("the audit record's method is %d bytes: %.60q", len(m), m)
	}

	// 8. A token scoped to B is told of B alone.
	st := pr.must(onlyB, "status", map[string]any{})
	counts, _ := st["counts"].(map[string]any)
	if counts["scoped"] != true || counts["repositories"] != float64(1) || counts["tokens"] != float64(0) || counts["audit_records"] != float64(0) {
		t.Errorf("a scoped token's status counts: %v", counts)
	}

	// 4 and 5. A replay feed ends when its token is revoked; a token opens
	// at most 16.
	reader, readerKey := pr.token("session:report@"+b, "audit:read@"+b)
	feedSes := pr.must(reader, "session_report", map[string]any{"kind": "ready", "repository_id": b})["session_id"].(string)
	var feeds []*http.Response
	for i := range 17 {
		resp := pr.openFeed(reader, feedSes)
		if i < 16 {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("feed %d: HTTP %d", i+1, resp.StatusCode)
			}
			feeds = append(feeds, resp)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("feed 17 of one token: HTTP %d, want 429", resp.StatusCode)
		}
	}
	ended := make(chan error, len(feeds))
	for _, resp := range feeds {
		go func() {
			defer resp.Body.Close()
			_, err := io.Copy(io.Discard, bufio.NewReader(resp.Body))
			ended <- err
		}()
	}
	revoked := time.Now()
	mustCLI(t, pr.env, "token", "revoke", readerKey)
	deadline := time.After(5 * time.Second)
	for range feeds {
		select {
		case <-ended:
		case <-deadline:
			t.Fatalf("a feed was still open %s after its token was revoked", time.Since(revoked).Round(time.Millisecond))
		}
	}
	if took := time.Since(revoked); took > 2*time.Second {
		t.Errorf("feeds ended %s after the revocation, want within a second", took)
	} else {
		t.Logf("16 feeds ended %s after the revocation", took.Round(time.Millisecond))
	}
}

// openFeed opens the replay feed of a session with tok.
func (pr *prober) openFeed(tok, session string) *http.Response {
	pr.t.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(pr.ep, "/mcp")+"/events?session_id="+session, nil)
	if err != nil {
		pr.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		pr.t.Fatal(fmt.Errorf("open feed: %w", err))
	}
	return resp
}
