package e2e

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSlowHeadersAreCut: a client that sends half a request and stalls is
// disconnected by the server's header timeout instead of holding a
// connection (and a goroutine) forever.
func TestSlowHeadersAreCut(t *testing.T) {
	d := newDirs(t)
	p := start(t, d.env(false), "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	u, _ := url.Parse(ep)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+u.Host+"\r\nX-Slow: ")
	begin := time.Now()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.ReadAll(conn) // returns when the server closes
	took := time.Since(begin)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a stalled request open for %s", took)
	}
	if took > 10*time.Second {
		t.Fatalf("stalled request cut after %s, want about the 5 s header timeout", took)
	}
	t.Logf("stalled request cut after %s", took.Round(100*time.Millisecond))
}

// TestHostileRequestsOnTheRealServer runs a few transport attacks against
// the real binary's listener (the full table is in mcpserver's tests).
func TestHostileRequestsOnTheRealServer(t *testing.T) {
	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	ep := waitEndpoint(t, p, d, 15*time.Second)
	tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
	u, _ := url.Parse(ep)

	for _, tc := range []struct {
		name   string
		req    func() *http.Request
		status int
		code   string
	}{
		{"token in the query string", func() *http.Request {
			r, _ := http.NewRequest("POST", ep+"?access_token="+url.QueryEscape(tok), strings.NewReader(statusCall))
			return r
		}, 401, "token_missing"},
		{"DNS rebinding Host", func() *http.Request {
			r, _ := http.NewRequest("POST", ep, strings.NewReader(statusCall))
			r.Host = "127.0.0.1.evil.example:" + u.Port()
			r.Header.Set("Authorization", "Bearer "+tok)
			return r
		}, 403, "host_forbidden"},
		{"foreign Origin", func() *http.Request {
			r, _ := http.NewRequest("POST", ep, strings.NewReader(statusCall))
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Authorization", "Bearer "+tok)
			return r
		}, 403, "origin_forbidden"},
		{"5 MiB body", func() *http.Request {
			body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}`
			r, _ := http.NewRequest("POST", ep, strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+tok)
			return r
		}, 413, "payload_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(tc.req())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(bufio.NewReader(resp.Body))
			if resp.StatusCode != tc.status || !strings.Contains(string(body), `"code":"`+tc.code+`"`) {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, body, tc.status, tc.code)
			}
			if strings.Contains(string(body), tok[21:]) {
				t.Fatal("the answer carries the token's secret")
			}
		})
	}
	if strings.Contains(p.Output(), tok[21:]) {
		t.Fatal("the daemon's output carries the token's secret")
	}
}
