package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// recorder is an http.RoundTripper that keeps a copy of every response
// body and transport error, so a test can look for leaked secrets in all
// that went back to clients.
type recorder struct {
	next http.RoundTripper
	// bearer, when set, is sent as the Authorization header.
	bearer string

	mu     sync.Mutex
	bodies []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.bearer != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		r.keep(err.Error())
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.keep(fmt.Sprint(resp.Header) + "\n" + string(body))
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func (r *recorder) keep(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, s)
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

// httpEnv is a registry served by NewHTTPHandler on real loopback HTTP,
// with tokens of every state.
type httpEnv struct {
	*fixture
	srv *httptest.Server
	url string
	// rec sees every response of clients made by client().
	rec *recorder

	clientRaw, auditRaw, revokedRaw, expiredRaw, unknownRaw, wrongSecretRaw string
	client, auditOnly                                                       store.Token
}

const allowedOrigin = "https://tools.example"

func newHTTPEnv(t testing.TB) *httpEnv {
	t.Helper()
	e := &httpEnv{fixture: newFixture(t)}
	e.client, e.clientRaw = e.createClientToken(t)
	e.auditOnly, e.auditRaw = e.createToken(t, store.TokenSpec{Label: "auditor", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{"*"}}}})
	revoked, revokedRaw := e.createToken(t, store.TokenSpec{Label: "revoked", Grants: allGrants()})
	e.revokedRaw = revokedRaw
	e.update(t, func(tx *store.Tx) error { _, err := tx.RevokeToken(revoked.KeyID); return err })
	exp := e.clock.Now().Add(time.Minute)
	_, e.expiredRaw = e.createToken(t, store.TokenSpec{Label: "expired", Grants: allGrants(), ExpiresAt: &exp})
	e.clock.Add(time.Hour)
	e.unknownRaw, _, _ = store.NewTokenSecret()
	// The client token's key id with another secret.
	other, _, _ := store.NewTokenSecret()
	e.wrongSecretRaw = "sbt_" + e.client.KeyID + "_" + other[len("sbt_0123456789abcdef_"):]

	h := NewHTTPHandler(e.reg, HTTPOptions{AllowOrigins: []string{allowedOrigin}, Version: testVersion, Log: e.log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	e.url = e.srv.URL + "/mcp"
	e.rec = &recorder{next: e.srv.Client().Transport}
	return e
}

// httpClient returns a client whose responses e.rec records and which
// sends bearer, when not empty, on every request.
func (e *httpEnv) httpClient(bearer string) *http.Client {
	return &http.Client{Transport: &recorder{next: e.rec, bearer: bearer}}
}

// rpcReply is a JSON-RPC answer, error or result.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code store.Code `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

type httpCase struct {
	name   string
	method string // default POST
	query  string
	host   string
	header map[string]string // Authorization defaults to the client token
	body   string            // default a ping

	status  int
	code    store.Code // error.data.code; "" for a request that must succeed
	rpcCode int64      // JSON-RPC error code, when checked
	id      string     // the id echoed, when checked
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// do sends c and checks the answer.
func (e *httpEnv) do(t *testing.T, c httpCase) rpcReply {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	if c.body == "" && c.method == http.MethodPost {
		c.body = pingBody
	}
	req, err := http.NewRequestWithContext(t.Context(), c.method, e.url+c.query, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if _, set := c.header["Authorization"]; !set {
		req.Header.Set("Authorization", "Bearer "+e.clientRaw)
	}
	for k, v := range c.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := e.httpClient("").Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != c.status {
		t.Errorf("%s: HTTP %d, want %d; body %s", c.name, resp.StatusCode, c.status, body)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode == http.StatusUnauthorized {
		if challenge != `Bearer realm="switchboard"` {
			t.Errorf("%s: WWW-Authenticate %q", c.name, challenge)
		}
	} else if challenge != "" {
		t.Errorf("%s: WWW-Authenticate %q on HTTP %d", c.name, challenge, resp.StatusCode)
	}
	var reply rpcReply
	if c.status == http.StatusMethodNotAllowed {
		if allow := resp.Header.Get("Allow"); allow != "POST" {
			t.Errorf("%s: Allow %q", c.name, allow)
		}
		return reply
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q; body %s", c.name, ct, body)
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		t.Fatalf("%s: body is not JSON: %v: %s", c.name, err, body)
	}
	if reply.JSONRPC != "2.0" {
		t.Errorf("%s: jsonrpc %q", c.name, reply.JSONRPC)
	}
	switch {
	case c.code == "" && reply.Error != nil:
		t.Errorf("%s: error %+v, want success", c.name, *reply.Error)
	case c.code != "" && reply.Error == nil:
		t.Errorf("%s: success %s, want %s", c.name, body, c.code)
	case c.code != "":
		if reply.Error.Data.Code != c.code {
			t.Errorf("%s: error.data.code %q, want %q", c.name, reply.Error.Data.Code, c.code)
		}
		if c.rpcCode != 0 && reply.Error.Code != c.rpcCode {
			t.Errorf("%s: error.code %d, want %d", c.name, reply.Error.Code, c.rpcCode)
		}
		if reply.Error.Message == "" {
			t.Errorf("%s: no error message", c.name)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q", c.name, cc)
		}
	}
	if c.id != "" && string(reply.ID) != c.id {
		t.Errorf("%s: id %s, want %s", c.name, reply.ID, c.id)
	}
	return reply
}

func bearer(raw string) map[string]string { return map[string]string{"Authorization": "Bearer " + raw} }

// frontLayerCases are the requests our layer in front of the SDK answers,
// and a few it must let through.
func (e *httpEnv) frontLayerCases() []httpCase {
	big := strings.Repeat(" ", mcpserver.MaxBodyBytes+1-len(pingBody)) + pingBody
	exact := pingBody + strings.Repeat(" ", mcpserver.MaxBodyBytes-len(pingBody))
	q := url.Values{"token": {e.clientRaw}}.Encode()
	return []httpCase{
		{name: "ping", status: 200},
		{name: "no Authorization", header: map[string]string{"Authorization": ""}, status: 401, code: store.CodeTokenMissing},
		{name: "Basic scheme", header: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, status: 401, code: store.CodeTokenMissing},
		{name: "empty bearer", header: map[string]string{"Authorization": "Bearer "}, status: 401, code: store.CodeTokenMissing},
		{name: "garbage", header: bearer("garbage"), status: 401, code: store.CodeTokenMalformed},
		{name: "bad key id", header: bearer("sbt_XYZ_abc"), status: 401, code: store.CodeTokenMalformed},
		{name: "unknown key id", header: bearer(e.unknownRaw), status: 401, code: store.CodeTokenInvalid},
		{name: "wrong secret", header: bearer(e.wrongSecretRaw), status: 401, code: store.CodeTokenInvalid},
		{name: "revoked", header: bearer(e.revokedRaw), status: 401, code: store.CodeTokenRevoked},
		{name: "expired", header: bearer(e.expiredRaw), status: 401, code: store.CodeTokenExpired},
		{name: "lowercase scheme", header: map[string]string{"Authorization": "bearer " + e.clientRaw}, status: 200},
		{name: "token in query", query: "?" + q, header: map[string]string{"Authorization": ""}, status: 401, code: store.CodeTokenMissing},
		{name: "access_token in query", query: "?access_token=" + url.QueryEscape(e.clientRaw), header: map[string]string{"Authorization": ""}, status: 401, code: store.CodeTokenMissing},
		{name: "token in params", header: map[string]string{"Authorization": ""}, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":%q}}`, e.clientRaw), status: 401, code: store.CodeTokenMissing},

		{name: "host evil", host: "evil.example", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host evil with port", host: "evil.example:80", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host loopback prefix", host: "127.0.0.1.evil.example", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host localhost prefix", host: "localhost.evil", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host localhost suffix", host: "evillocalhost:80", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host LAN address", host: "192.168.1.5:8080", status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host evil, no token", host: "evil.example", header: map[string]string{"Authorization": ""}, status: 403, code: mcpserver.CodeHostForbidden},
		{name: "host localhost", host: "localhost:1234", status: 200},
		{name: "host LOCALHOST", host: "LOCALHOST", status: 200},
		{name: "host 127.0.0.1", host: "127.0.0.1:9", status: 200},
		{name: "host 127.0.0.2", host: "127.0.0.2", status: 200},
		{name: "host ::1", host: "[::1]:9", status: 200},
		{name: "host ::1 no port", host: "[::1]", status: 200},

		{name: "origin evil", header: map[string]string{"Origin": "http://evil.example"}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin null", header: map[string]string{"Origin": "null"}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin loopback prefix", header: map[string]string{"Origin": "http://127.0.0.1.evil.example"}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin file", header: map[string]string{"Origin": "file://"}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin allowed one, other port", header: map[string]string{"Origin": allowedOrigin + ":8443"}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin evil, no token", header: map[string]string{"Origin": "http://evil.example", "Authorization": ""}, status: 403, code: mcpserver.CodeOriginForbidden},
		{name: "origin localhost", header: map[string]string{"Origin": "http://localhost:3000"}, status: 200},
		{name: "origin 127.0.0.1", header: map[string]string{"Origin": "https://127.0.0.1"}, status: 200},
		{name: "origin ::1", header: map[string]string{"Origin": "http://[::1]:5173"}, status: 200},
		{name: "origin allowed", header: map[string]string{"Origin": allowedOrigin}, status: 200},

		{name: "malformed JSON", body: `{"jsonrpc":"2.0",`, status: 400, code: mcpserver.CodeParseError, rpcCode: -32700, id: "null"},
		{name: "not JSON", body: `hello`, status: 400, code: mcpserver.CodeParseError, rpcCode: -32700},
		{name: "batch", body: "[" + pingBody + "]", status: 400, code: mcpserver.CodeInvalidRequest, rpcCode: -32600},
		{name: "JSON string", body: `"ping"`, status: 400, code: mcpserver.CodeInvalidRequest, rpcCode: -32600},
		{name: "JSON null", body: `null`, status: 400, code: mcpserver.CodeInvalidRequest, rpcCode: -32600},
		{name: "no jsonrpc", body: `{"id":3,"method":"ping"}`, status: 400, code: mcpserver.CodeInvalidRequest, rpcCode: -32600, id: "3"},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, status: 400, code: mcpserver.CodeInvalidRequest, id: "3"},
		{name: "no method", body: `{"jsonrpc":"2.0","id":3}`, status: 400, code: mcpserver.CodeInvalidRequest, id: "3"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":42,"method":"foo/bar"}`, status: 404, code: store.CodeMethodUnknown, rpcCode: -32601, id: "42"},
		{name: "unknown method, string id", body: `{"jsonrpc":"2.0","id":"req-7","method":"foo/bar"}`, status: 404, code: store.CodeMethodUnknown, rpcCode: -32601, id: `"req-7"`},
		{name: "body over 4 MiB", body: big, status: 413, code: mcpserver.CodePayloadTooLarge},
		{name: "body of 4 MiB", body: exact, status: 200},

		// A modern client's GET (it names its protocol version) is refused;
		// a legacy one opens an SSE stream (sse_test.go), after the token.
		{name: "GET modern", method: http.MethodGet, header: map[string]string{"MCP-Protocol-Version": "2025-06-18"}, status: 405},
		{name: "GET with session id", method: http.MethodGet, header: map[string]string{"Mcp-Session-Id": "x"}, status: 405},
		{name: "GET legacy without token", method: http.MethodGet, header: map[string]string{"Authorization": ""}, status: 401, code: store.CodeTokenMissing},
		{name: "DELETE", method: http.MethodDelete, status: 405},
		{name: "PUT", method: http.MethodPut, status: 405},
	}
}

func TestHTTPFrontLayer(t *testing.T) {
	e := newHTTPEnv(t)
	for _, c := range e.frontLayerCases() {
		t.Run(c.name, func(t *testing.T) { e.do(t, c) })
	}
}

// Front-layer refusals happen before the registry: nothing is audited and
// no token is marked used.
func TestHTTPFrontLayerWritesNothing(t *testing.T) {
	e := newHTTPEnv(t)
	for _, c := range e.frontLayerCases() {
		e.do(t, c)
	}
	if recs := e.audit(t); len(recs) != 0 {
		t.Errorf("%d audit records for requests that call no method: %+v", len(recs), recs)
	}
}

// A client that accepts JSON alone, and sends no Content-Type, is served a
// JSON body.
func TestHTTPAcceptJSONOnly(t *testing.T) {
	e := newHTTPEnv(t)
	for _, accept := range []string{"application/json", "", "*/*"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, e.url,
			strings.NewReader(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"status","arguments":{}}}`))
		req.Header.Set("Authorization", "Bearer "+e.clientRaw)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := e.httpClient("").Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("Accept %q: HTTP %d %q: %s", accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var reply struct {
			ID     string `json:"id"`
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					OK     bool                   `json:"ok"`
					Result mcpserver.StatusResult `json:"result"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &reply); err != nil {
			t.Fatalf("Accept %q: %v: %s", accept, err, body)
		}
		sc := reply.Result.StructuredContent
		if reply.ID != "a" || reply.Result.IsError || !sc.OK || sc.Result.Version != testVersion {
			t.Errorf("Accept %q: %s", accept, body)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "localhost:1": true, "LocalHost:80": true, "127.0.0.1": true, "127.255.0.1:9": true,
		"[::1]": true, "[::1]:443": true, "::1": true,
		"": false, "evil.example": false, "127.0.0.1.evil.example": false, "localhost.evil": false,
		"0.0.0.0:80": false, "[::]:80": false, "10.0.0.1": false, "[fe80::1]:80": false, "localhost.:80": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// An origin saved in Settings is accepted by the next request, and refused
// again once it is removed: the front layer re-reads the saved origins
// after every connection.put, and only then.
func TestSavedOriginsApplyAtOnce(t *testing.T) {
	e := newHTTPEnv(t)
	const origin = "https://saved.example"
	refused := httpCase{name: "saved origin", header: map[string]string{"Origin": origin}, status: 403, code: mcpserver.CodeOriginForbidden}
	accepted := refused
	accepted.status, accepted.code = 200, ""
	put := func(origins ...string) {
		t.Helper()
		args, _ := json.Marshal(mcpserver.ConnectionSettings{AllowOrigins: origins})
		if res := e.invoke(mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "connection.put", string(args)); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	e.do(t, refused)
	put(origin)
	e.do(t, accepted)
	e.do(t, accepted)
	put("https://other.example")
	e.do(t, refused)
	e.do(t, httpCase{name: "flag origin still", header: map[string]string{"Origin": allowedOrigin}, status: 200})
}
